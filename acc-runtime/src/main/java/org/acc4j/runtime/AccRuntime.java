package org.acc4j.runtime;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.runtime.cache.CubinCache;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.CudaException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.OutOfDeviceMemoryException;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.Launcher;
import org.acc4j.runtime.launch.Offloader;
import org.acc4j.runtime.launch.Sites;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.profile.Profile;
import org.acc4j.runtime.profile.ProfileFormat;
import org.acc4j.spi.Backend;

/**
 * The runtime: the one singleton of acc4j, started on first use and stopped by {@link #shutdown()} or at exit.
 *
 * <p>It owns, in order of creation (and releases in reverse): the device's context, the present table, the
 * kernel cache, and the launcher. Where there is no usable GPU (no driver, no device, an {@code ACC_DEVICE_NUM}
 * beyond the device count, {@code ACC_DEVICE_TYPE=host}) it says so once through {@link Log} and every region runs
 * as plain Java.
 *
 * <p>With profiling on ({@link Options#profiling()}) it also owns a {@link Profile}, from start-up to
 * {@link #shutdown()}, which prints it to stderr and writes its JSON file (shutdown runs at exit too).
 *
 * <p>Any thread may call in: every operation on the device goes through the {@link Guard}, which serialises them,
 * makes the context current on the calling thread and rebuilds the device after a sticky fault (the caller gets a
 * {@link org.acc4j.runtime.cuda.DeviceFaultException}). {@link #shutdown()} (also run at JVM exit) waits for the
 * operation in progress, then frees every buffer and module and releases the context.
 *
 * <p>The agent's advice calls the static entry points {@link #offload}, {@link #afterHost},
 * {@link #enterData} and {@link #exitData}.
 */
public final class AccRuntime implements Backend {
    private static final AccRuntime INSTANCE = new AccRuntime();

    private record Gpu(Device device, Context context, PresentTable table, KernelCache cache, Launcher launcher,
                       Guard guard, Offloader offloader, java.util.Map<Long, DeviceBuffer> blocks) {
        /** Frees everything in reverse order of creation, going on past failures; the context is always released. */
        void close() {
            synchronized (guard) {
                // the device lock: the call in progress ends first
                RuntimeException failure = null;
                List<Runnable> steps = guard.lost() == null
                        ? List.of(context::makeCurrent, launcher::close, this::freeBlocks, cache::close, table::close,
                                context::close)
                        // the device is lost: everything on it was abandoned; try to give the context back
                        : List.of(table::close, () -> {
                            blocks.values().forEach(DeviceBuffer::abandon);
                            blocks.clear();
                        }, () -> {
                            try {
                                context.close();
                            } catch (RuntimeException e) {
                                // the poisoned context refuses its release too; the process's end takes it
                            }
                        });
                for (Runnable step : steps) {
                    try {
                        step.run();
                    } catch (RuntimeException e) {
                        if (failure == null) {
                            failure = e;
                        } else {
                            failure.addSuppressed(e);
                        }
                    }
                }
                if (failure != null) {
                    throw failure;
                }
            }
        }

        /** Frees what {@code Acc.malloc} gave and was not freed. */
        private void freeBlocks() {
            RuntimeException failure = null;
            for (DeviceBuffer b : blocks.values()) {
                try {
                    b.close();
                } catch (RuntimeException e) {
                    failure = failure == null ? e : failure;
                }
            }
            blocks.clear();
            if (failure != null) {
                throw failure;
            }
        }
    }

    private final Object lock = new Object();
    private volatile boolean started;
    private volatile Gpu gpu;
    /** The multicore target, where there is no GPU and the device type is not {@code host}; else null. */
    private volatile org.acc4j.runtime.launch.Multicore multicore;
    /** The multicore target's present counts (shared memory: nothing moves); null when it is not the target. */
    private volatile org.acc4j.runtime.data.SharedPresence shared;
    /** Reads {@code @Data} clauses for the multicore target's counts (no device behind it). */
    private volatile Offloader clauses;
    private volatile boolean report;
    /** The profile of this run of the runtime and the options that asked for it; null when profiling is off. */
    private volatile Profile profile;
    private Options profileOptions;
    private boolean hookInstalled;
    /** The device {@code Acc.setDeviceNumber} chose, which wins over {@code ACC_DEVICE_NUM}; -1 for none. */
    private volatile int chosenDevice = -1;
    /** Whether the loss of the device was said (once per run of the runtime). */
    private volatile boolean lossReported;

    private AccRuntime() {
    }

    public static AccRuntime get() {
        return INSTANCE;
    }

    private Gpu gpu() {
        if (!started) {
            synchronized (lock) {
                if (!started) {
                    start();
                    started = true;
                }
            }
        }
        return gpu;
    }

    private void start() {
        long startNanos = System.nanoTime();
        boolean background = Thread.currentThread().getName().equals(Startup.THREAD);
        Options options;
        try {
            options = Options.fromEnvironment();
        } catch (IllegalArgumentException e) {
            Log.warning(e.getMessage().replaceFirst("^acc4j: ", "") + "; running every region as plain Java");
            return;
        }
        report = options.report();
        Profile p = null;
        if (options.profiling()) {
            p = new Profile(System::nanoTime);
            profile = p;
            profileOptions = options;
            installHook();
        }
        if (options.hostOnly()) {
            Log.info(options.given("ACC_DEVICE_TYPE") + ": @Kernels methods run as plain Java");
            noDevice(p, options.given("ACC_DEVICE_TYPE"));
            return;
        }
        if (options.multicore()) {
            multicore(options, p, options.given("ACC_DEVICE_TYPE"), false);
            return;
        }
        try {
            List<Device> devices = Device.all();
            if (devices.isEmpty()) {
                multicore(options, p, "no CUDA device found", true);
                return;
            }
            int number = chosenDevice >= 0 ? chosenDevice : options.deviceNumber();
            if (number >= devices.size()) {
                String why = deviceNumberBeyond(chosenDevice >= 0 ? "Acc.setDeviceNumber(" + number + ")"
                        : options.given("ACC_DEVICE_NUM"), devices.size());
                multicore(options, p, why, true);
                return;
            }
            Device d = devices.get(number);
            Context context = Context.open(d);
            PresentTable table = new PresentTable(new CudaMemory());
            KernelCache cache = new KernelCache(options.cache() == Options.CacheMode.CUBIN && options.cacheDir() != null
                    ? new CubinCache<>(options.cacheDir(), Device.driverVersion(), d.smTarget(), KernelCache.CUDA,
                            Log::warning)
                    : null);
            java.util.function.Consumer<String> lines = report ? AccRuntime::printReport : line -> { };
            Launcher launcher;
            try {
                launcher = new Launcher(d, context, table, p, report ? lines : null, options.mapped());
            } catch (RuntimeException e) {
                // no room for the error record: give the context back
                context.close();
                throw e;
            }
            Guard guard = new Guard(context, table, cache, launcher);
            Offloader offloader = new Offloader(d, cache, launcher, guard, lines, p, options.dump(), options.sourcePath(),
                    options.hoistChecks());
            if (p != null) {
                table.listener(p);
                p.device(d.name() + " (device " + d.ordinal() + ", " + d.smTarget() + "; CUDA start-up "
                        + String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e6)
                        + " ms" + (background ? ", in the background" : "") + ")");
            }
            gpu = new Gpu(d, context, table, cache, launcher, guard, offloader,
                    new java.util.concurrent.ConcurrentHashMap<>());
            Log.debug("offloading to " + d.name() + " (" + d.smTarget() + ", " + d.multiprocessors() + " SMs)");
            if (report) {
                printReport("offloading to " + d.name() + " (" + d.smTarget() + ", " + d.multiprocessors() + " SMs)");
            }
            installHook();
        } catch (LinkageError | CudaException | OutOfDeviceMemoryException e) {
            multicore(options, p, "the CUDA driver could not be used (" + firstLine(e) + ")", true);
        }
    }

    /**
     * Starts the multicore target and says so once, with its thread count: {@code why} is the setting that chose it, or
     * why there is no GPU ({@code warn}).
     */
    private void multicore(Options options, Profile p, String why, boolean warn) {
        int threads = options.threads();
        String cores = threads + " thread" + (threads == 1 ? "" : "s") + " ("
                + (options.cores() > 0 ? options.given("ACC_NUM_CORES") : "every core") + ")";
        String message = why + ": @Kernels methods run on the host's cores (multicore), " + cores
                + (warn ? "; ACC_DEVICE_TYPE=host runs them as plain Java on the calling thread" : "");
        if (warn) {
            Log.warning(message);
        } else {
            Log.info(message);
        }
        if (report) {
            printReport("multicore target: " + cores);
        }
        multicore = new org.acc4j.runtime.launch.Multicore(threads, p, report ? AccRuntime::printReport : null);
        shared = new org.acc4j.runtime.data.SharedPresence();
        clauses = new Offloader(null, null, null, null, line -> { }, null);
        if (p != null) {
            p.device(org.acc4j.runtime.profile.ProfileFormat.MULTICORE + ", " + cores + "): " + why);
        }
        installHook();
    }

    /**
     * The message when {@code ACC_DEVICE_NUM} names a device that does not exist (then every region runs on the host).
     *
     * @param setting the setting as the user gave it, e.g. {@code -Dacc.device.num=4}
     */
    static String deviceNumberBeyond(String setting, int count) {
        return setting + " but " + devicesThere(count);
    }

    /** {@code there is 1 CUDA device (numbered from 0)}, or as many as there are. */
    private static String devicesThere(int count) {
        return "there " + (count == 1 ? "is 1 CUDA device" : "are " + count + " CUDA devices") + " (numbered from 0)";
    }

    private static void noDevice(Profile p, String why) {
        if (p != null) {
            p.device("none (" + why + "): every region ran as plain Java");
        }
    }

    private void installHook() {
        if (!hookInstalled) {
            hookInstalled = true;
            Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "acc4j-shutdown"));
        }
    }

    /** JCuda's load errors carry nested stack traces; keep the cause a user can act on. */
    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        // a second start finds JCuda's class failed: the first failure is its cause
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("libcuda.so")) {
                return "libcuda.so.1 cannot be loaded: no NVIDIA driver on this machine";
            }
        }
        int nl = m.indexOf('\n');
        return nl > 0 ? m.substring(0, nl) : m;
    }

    /** The compile report is explicit output, asked for with its switch: stderr, not the log. */
    private static void printReport(String line) {
        System.err.println("acc4j: " + line);
    }

    // ------------------------------------------------------------------ entry points of rewritten @Kernels methods

    private final Sites sites = new Sites(this::siteParts, this::siteMulticore, () -> report, AccRuntime::printReport);

    private org.acc4j.runtime.launch.Multicore siteMulticore() {
        gpu();
        return multicore;
    }

    /** The multicore target's thread count, or 0 when nests do not run on it (a GPU, or plain Java). */
    public int multicoreThreads() {
        gpu();
        org.acc4j.runtime.launch.Multicore m = multicore;
        return m == null ? 0 : m.threads();
    }

    private Sites.Parts siteParts() {
        Gpu g = gpu();
        if (g == null || g.guard.lost() != null) {
            return null;
        }
        // made once per run of the runtime: a call allocates no parts of its own
        Sites.Parts p = parts;
        if (p == null || p.guard() != g.guard) {
            p = new Sites.Parts(g.guard, g.offloader, g.table, g.launcher);
            parts = p;
        }
        return p;
    }

    private volatile Sites.Parts parts;

    /** The launch sites' side of the runtime: plans and their statistics. */
    public Sites sites() {
        return sites;
    }

    /** Registers the plan of a rewritten {@code @Kernels} method (the agent does, as the class loads); its number. */
    public static int register(MethodPlan plan) {
        int id = INSTANCE.sites.register(plan);
        INSTANCE.compileAhead(plan);
        return id;
    }

    /** Whether the runtime was asked to start in the background (the agent does, at JVM start). */
    private volatile boolean startingInBackground;
    /** Compiles registered kernels before their first call; made on first use. */
    private java.util.concurrent.ExecutorService ahead;
    private final Object aheadLock = new Object();

    /**
     * Compiles the kernels of a plan just registered on a low-priority daemon thread (into the cubin cache, or loaded
     * through the driver's JIT when the cubin cache is off), so that the JIT's work overlaps the application's until
     * the first call. Only where the runtime is starting or started (it is not started for this) and the device is the
     * one the plan's kernels were compiled for. The checked variant comes after the one without proven checks.
     */
    private void compileAhead(MethodPlan plan) {
        if (plan.sites().isEmpty() || !started && !startingInBackground) {
            return;
        }
        java.util.concurrent.ExecutorService ex;
        // not the start's lock: class loading must not wait for the runtime's start
        synchronized (aheadLock) {
            if (ahead == null) {
                ahead = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "acc4j-compile");
                    t.setDaemon(true);
                    t.setPriority(Thread.MIN_PRIORITY);
                    return t;
                });
            }
            ex = ahead;
        }
        ex.execute(() -> {
            try {
                Gpu g = gpu();
                if (g == null || g.guard.lost() != null
                        || g.device.computeMajor() * 10 + g.device.computeMinor()
                        != org.acc4j.compiler.site.Planner.PLAN_SM) {
                    return;
                }
                g.context.makeCurrent();
                for (MethodPlan.Site site : plan.sites()) {
                    for (org.acc4j.compiler.KernelPlan k : site.compiled().method().kernels()) {
                        if (k.unchecked() != null) {
                            g.cache.prepare("site#" + KernelCache.keyOf(k.unchecked().ptx()), k.unchecked().ptx(),
                                    k.unchecked().entry());
                        }
                        g.cache.prepare("site#" + KernelCache.keyOf(k.ptx()), k.ptx(), k.entry());
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                // the first call compiles, and says what went wrong
                Log.debug("compiling kernels ahead of their first call failed: " + e);
            }
        });
    }

    /** The start of a call of a rewritten method: its call object, handed to each site and to the exit. */
    public static Object enterCall(Class<?> owner, Object self, int plan, Object[] args, Object[] handles) {
        MethodPlan p = INSTANCE.sites.plan(plan);
        return INSTANCE.sites.enter(owner, self, plan, args, handles,
                () -> enterData(owner, p.name(), p.descriptor(), self, args));
    }

    /** A launch site: the live-out values when the device ran the nest, or null to run its bytecode on the host. */
    public static Object[] site(Object call, int site, Object[] values) {
        return INSTANCE.sites.site(call, site, values);
    }

    /** The normal end of a call of a rewritten method. */
    public static void exitCall(Object call) {
        INSTANCE.sites.exit(call, AccRuntime::exitData);
    }

    /** The end of a call that threw {@code thrown}: the call's data is exited, and {@code thrown} is given back to rethrow. */
    public static Throwable exitCallThrown(Object call, Throwable thrown) {
        try {
            exitCall(call);
        } catch (RuntimeException | Error e) {
            if (e != thrown) {
                thrown.addSuppressed(e);
            }
        }
        return thrown;
    }

    // ------------------------------------------------------------------ entry points of the agent's advice

    /** Runs a {@code @Kernels} call on the device; false means the original body must run (on the host). */
    public static boolean offload(Class<?> owner, String name, String desc, Object self, Object[] args) {
        return offloadValue(owner, name, desc, self, args) != null;
    }

    /**
     * Before a {@code @Kernels} call runs as plain Java because the device was lost: refuses it if it may use an
     * array whose device-side changes the fault lost (its host copy is stale); says once that the device is lost.
     */
    private void hostAfterLoss(Gpu g, Class<?> owner, String name, Object self, Object[] args) {
        DeviceFaultException fault = g.guard.lost();
        for (Object a : arraysOf(owner, self, args)) {
            String lost = g.guard.lostArray(a);
            if (lost != null) {
                throw DeviceLostException.array(owner.getSimpleName() + "." + name, lost, fault);
            }
        }
        if (!lossReported) {
            lossReported = true;
            Log.warning("the device was lost after a fault in " + fault.what() + ": @Kernels methods run as plain"
                    + " Java from now on (restart the JVM to use the GPU again)");
        }
    }

    /**
     * Runs a {@code @Kernels} call on the device: a one-element array holding the method's value (null for a void
     * method), or null when the original body must run (on the host).
     */
    public static Object[] offloadValue(Class<?> owner, String name, String desc, Object self, Object[] args) {
        Gpu g = INSTANCE.gpu();
        if (g == null) {
            return null;
        }
        if (g.guard.lost() == null) {
            try {
                Offloader.Outcome o = g.offloader.run(owner, name, desc, self, args);
                if (o.onDevice()) {
                    return new Object[] {o.value()};
                }
                if (o.firstTime()) {
                    Log.warning(o.reason());
                }
                sync(g, owner, self, args, true);
                return null;
            } catch (DeviceLostException e) {
                if (e.array() != null) {
                    throw e;
                }
            }
        }
        INSTANCE.hostAfterLoss(g, owner, name, self, args);
        return null;
    }

    /** After a {@code @Kernels} call ran on the host: device copies of its arrays get the host's values. */
    public static void afterHost(Class<?> owner, Object self, Object[] args) {
        Gpu g = INSTANCE.gpu;
        if (g != null && g.guard.lost() == null) {
            sync(g, owner, self, args, false);
        }
    }

    /** Enters the data region of a {@code @Data} method; null when there is no device. */
    public static Object enterData(Class<?> owner, String name, String desc, Object self, Object[] args) {
        Gpu g = INSTANCE.gpu();
        if (g == null) {
            return INSTANCE.enterShared(owner, name, desc, self, args);
        }
        String what = "the data region of " + owner.getSimpleName() + "." + name;
        if (g.guard.lost() == null) {
            try {
                return g.guard.run(what, () -> {
                    g.launcher.queues().finishAll();
                    return g.offloader.enterRegion(owner, name, desc, self, args, g.table);
                });
            } catch (DeviceLostException e) {
                if (e.array() != null) {
                    throw e;
                }
            }
        }
        // the device is lost: a host region, unless it names an array whose device-side changes were lost
        for (Object a : g.offloader.regionArrays(owner, name, desc, self, args)) {
            String lost = g.guard.lostArray(a);
            if (lost != null) {
                throw DeviceLostException.array(what, lost, g.guard.lost());
            }
        }
        return null;
    }

    /** A data region entered on the multicore target: the arrays whose structured counts it raised. */
    private record SharedRegion(org.acc4j.runtime.data.SharedPresence counts, List<Object> presence) {
    }

    /** The multicore target's data region: counts only; null where the target is plain Java. */
    private Object enterShared(Class<?> owner, String name, String desc, Object self, Object[] args) {
        org.acc4j.runtime.data.SharedPresence s = shared;
        Offloader o = clauses;
        if (s == null || o == null) {
            return null;
        }
        List<Object> arrays = o.regionArrays(owner, name, desc, self, args);
        arrays.forEach(a -> s.enter(a, true));
        return new SharedRegion(s, arrays);
    }

    /** Exits a data region entered by {@link #enterData}. */
    public static void exitData(Object token) {
        if (token instanceof SharedRegion r) {
            r.presence().forEach(a -> r.counts().exit(a, true, false));
            return;
        }
        Gpu g = INSTANCE.gpu;
        if (g != null && token != null && g.guard.lost() == null) {
            // a region entered before the device was lost has nothing left on it to exit
            g.guard.run("the exit of a data region", () -> {
                g.launcher.queues().finishAll();
                g.offloader.exitRegion(token, g.table);
                return null;
            });
        }
    }

    /**
     * Keeps a host run correct inside data regions: before it, present arrays it may use (rank-2 arrays row by
     * row) are copied to the host; after it, back to the device.
     */
    private static void sync(Gpu g, Class<?> owner, Object self, Object[] args, boolean toHost) {
        List<Object> arrays = arraysOf(owner, self, args);
        g.guard.run("the copies around a host run of " + owner.getSimpleName(), () -> {
            // the host run sees everything queued before it
            g.launcher.queues().finishAll();
            for (Object a : arrays) {
                // a row the host run set to null has no device copy to update; launches of the array run on the host
                if (g.table.isPresent(a) && (toHost || HostArrays.nullRow(a) < 0)) {
                    if (toHost) {
                        g.table.updateHost(a);
                    } else {
                        g.table.updateDevice(a);
                    }
                }
            }
            return null;
        });
    }

    /** The arrays a {@code @Kernels} call may use: its array arguments, and its class's array fields. */
    private static List<Object> arraysOf(Class<?> owner, Object self, Object[] args) {
        List<Object> arrays = new ArrayList<>();
        for (Object a : args) {
            if (a != null && HostArrays.isDataType(a.getClass())) {
                arrays.add(a);
            }
        }
        for (Field f : owner.getDeclaredFields()) {
            boolean isStatic = Modifier.isStatic(f.getModifiers());
            if (HostArrays.isDataType(f.getType()) && (isStatic || self != null)) {
                try {
                    f.setAccessible(true);
                    Object a = f.get(isStatic ? null : self);
                    if (a != null) {
                        arrays.add(a);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // a field we cannot read cannot be used by the method either
                }
            }
        }
        return arrays;
    }

    // ------------------------------------------------------------------ Backend: the Acc routines

    @Override
    public String name() {
        Gpu g = gpu();
        org.acc4j.runtime.launch.Multicore m = multicore;
        return g != null ? g.device.name() : m != null ? "host (multicore, " + m.threads() + " thread"
                + (m.threads() == 1 ? "" : "s") + ")" : "host";
    }

    @Override
    public void init() {
        gpu();
    }

    /** Begins starting the runtime on a daemon thread (the agent, at start-up); the first call waits for it. */
    public void startInBackground() {
        startingInBackground = true;
        Startup.inBackground(this::gpu);
    }

    /**
     * Frees the device and ends this run of the runtime; with profiling on, prints the profile to stderr
     * ({@code acc4j.profile}) and writes its JSON file ({@code acc4j.profile.json}). Runs at exit too.
     */
    @Override
    public void shutdown() {
        synchronized (lock) {
            Gpu g = gpu;
            Profile p = profile;
            Options o = profileOptions;
            if (multicore != null) {
                multicore.close();
                multicore = null;
            }
            shared = null;
            clauses = null;
            gpu = null;
            profile = null;
            profileOptions = null;
            started = false;
            lossReported = false;
            try {
                if (g != null) {
                    g.close();
                }
            } finally {
                if (p != null) {
                    emit(p, o);
                }
            }
        }
    }

    private static void emit(Profile p, Options o) {
        Profile.Snapshot s = p.snapshot();
        if (o.profile()) {
            System.err.print(ProfileFormat.text(s));
            System.err.flush();
        }
        if (o.profileJson() != null) {
            try {
                Files.writeString(o.profileJson(), ProfileFormat.json(s), StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                // explicit output, like the profile: at exit java.util.logging may already be reset
                System.err.println("acc4j: the profile could not be written to " + o.profileJson() + ": " + e);
            }
        }
    }

    /**
     * The time profile so far as text, printing nothing; a short text saying why when there is none (profiling
     * off). Starts the runtime if it has not started.
     */
    @Override
    public String report() {
        gpu();
        Profile p = profile;
        if (p == null) {
            return "acc4j: no profile: profiling is off (set -Dacc4j.profile=true or ACC4J_PROFILE=1, or name a JSON"
                    + " file with -Dacc4j.profile.json=path)\n";
        }
        return ProfileFormat.text(p.snapshot());
    }

    /** The profile of this run of the runtime, or null when profiling is off (for tests and tools). */
    public Profile profile() {
        gpu();
        return profile;
    }

    @Override
    public int deviceCount() {
        Gpu g = gpu();
        if (g == null) {
            return 0;
        }
        return Device.all().size();
    }

    @Override
    public boolean onDevice() {
        return gpu() != null;
    }

    @Override
    public void copyin(Object array) {
        withTable("Acc.copyin", false, array, t -> t.enterDynamic(array, Clause.COPYIN));
    }

    @Override
    public void create(Object array) {
        withTable("Acc.create", false, array, t -> t.enterDynamic(array, Clause.CREATE));
    }

    @Override
    public void copyout(Object array) {
        withTable("Acc.copyout", false, array, t -> t.exitDynamic(array, Clause.COPYOUT, false));
    }

    @Override
    public void delete(Object array) {
        withTable("Acc.delete", true, array, t -> t.exitDynamic(array, Clause.DELETE, false));
    }

    @Override
    public void updateDevice(Object array) {
        withTable("Acc.updateDevice", false, array, t -> t.updateDevice(array));
    }

    @Override
    public void updateHost(Object array) {
        withTable("Acc.updateHost", false, array, t -> t.updateHost(array));
    }

    @Override
    public boolean isPresent(Object array) {
        Gpu g = gpu();
        // isPresent frees the buffers of reclaimed arrays, which needs the context; on the host (and once the
        // device is lost) every array is "present", as OpenACC says of shared memory
        if (g == null) {
            // the multicore target keeps OpenACC's counts on shared memory
            org.acc4j.runtime.data.SharedPresence s = shared;
            return s == null || s.isPresent(array);
        }
        return g.guard.lost() != null || g.guard.run("Acc.isPresent", () -> g.table.isPresent(array));
    }

    @Override
    public void waitAll() {
        Gpu g = gpu();
        if (g != null && g.guard.lost() == null) {
            g.guard.run("Acc.waitAll", () -> {
                g.launcher.queues().finishAll();
                g.context.synchronize("Acc.waitAll");
                return null;
            });
        }
    }

    // ------------------------------------------------------------------ Backend: devices and device memory

    @Override
    public int deviceNumber() {
        Gpu g = gpu();
        return g == null ? 0 : g.device.ordinal();
    }

    /**
     * Uses device {@code number} from now on: the runtime is shut down (nothing must be present, allocated or
     * queued on the current device) and started again on the chosen device; later starts keep the choice.
     */
    @Override
    public void deviceNumber(int number) {
        synchronized (lock) {
            Gpu g = gpu();
            int count = deviceCountOrZero();
            if (number >= Math.max(count, 1)) {
                throw new IllegalArgumentException("acc4j: Acc.setDeviceNumber(" + number + "): there is no device "
                        + number + ": " + (count == 0 ? "running as plain Java (OpenACC's host device), the only"
                        + " device is 0" : devicesThere(count)));
            }
            if (g == null || g.device.ordinal() == number) {
                if (g == null && count > 0) {
                    chosenDevice = number;
                }
                return;
            }
            if (g.guard.lost() == null) {
                String busy = g.guard.run("Acc.setDeviceNumber(" + number + ")", () -> {
                    int present = g.table.size();
                    if (present > 0) {
                        return present + (present == 1 ? " array is" : " arrays are") + " present";
                    }
                    if (!g.blocks.isEmpty()) {
                        return g.blocks.size() + " block(s) from Acc.malloc are not freed";
                    }
                    if (g.launcher.queues().busy()) {
                        return "a queue has work not waited for";
                    }
                    return null;
                });
                if (busy != null) {
                    throw new IllegalStateException("acc4j: Acc.setDeviceNumber(" + number + "): " + busy + " on device "
                            + g.device.ordinal() + " (" + g.device.name() + "); copy it out or delete it, free it, or"
                            + " wait first: data on one GPU cannot be reached from another");
                }
            }
            chosenDevice = number;
            shutdown();
            gpu();
        }
    }

    private static int deviceCountOrZero() {
        try {
            return Device.all().size();
        } catch (LinkageError | CudaException e) {
            return 0;
        }
    }

    @Override
    public org.acc4j.DeviceProperties properties(int number) {
        Gpu g = gpu();
        int count = g == null ? 0 : deviceCountOrZero();
        if (count == 0) {
            return Backend.super.properties(number);
        }
        if (number >= count) {
            throw new IllegalArgumentException("acc4j: Acc.deviceProperties(" + number + "): there is no device "
                    + number + ": " + devicesThere(count));
        }
        Device d = Device.get(number);
        long free = -1;
        if (number == g.device.ordinal() && g.guard.lost() == null) {
            free = g.guard.run("Acc.deviceProperties", () -> g.context.memInfo().free());
        }
        return new org.acc4j.DeviceProperties(number, d.name(), d.totalMemory(), free, d.computeMajor(),
                d.computeMinor(), d.multiprocessors());
    }

    @Override
    public long malloc(long bytes) {
        Gpu g = gpu();
        if (g == null || bytes == 0 || g.guard.lost() != null) {
            return 0;
        }
        return g.guard.run("Acc.malloc(" + bytes + ")", () -> {
            DeviceBuffer b = org.acc4j.runtime.data.CudaMemory.allocateBuffer(bytes, "Acc.malloc(" + bytes + ")");
            g.blocks.put(b.address(), b);
            return b.address();
        });
    }

    @Override
    public void free(long address) {
        Gpu g = gpu();
        if (address == 0) {
            return;
        }
        DeviceBuffer b = g == null ? null : g.blocks.remove(address);
        if (b == null) {
            throw new IllegalArgumentException("acc4j: Acc.free(0x" + Long.toHexString(address) + "): not an address"
                    + " Acc.malloc gave, or freed already");
        }
        if (g.guard.lost() != null) {
            b.abandon();
            return;
        }
        g.guard.run("Acc.free(0x" + Long.toHexString(address) + ")", () -> {
            // a queue may still use it
            g.launcher.queues().finishAll();
            b.close();
            return null;
        });
    }

    @Override
    public long deviceptr(Object array) {
        Gpu g = gpu();
        if (g == null || g.guard.lost() != null) {
            return 0;
        }
        return g.guard.run("Acc.deviceptr of " + HostArrays.describe(array), () -> {
            org.acc4j.runtime.data.Buffer b = g.table.lookup(array);
            return b == null ? 0L : b.address();
        });
    }

    @Override
    public Object hostptr(long address) {
        Gpu g = gpu();
        String routine = "Acc.hostptr(0x" + Long.toHexString(address) + ")";
        if (g == null || g.guard.lost() != null) {
            throw new IllegalArgumentException("acc4j: " + routine + ": not the device address of a present array"
                    + (g == null ? " (no device in use: arrays have no device copies)" : " (the device was lost)"));
        }
        return g.guard.run(routine, () -> {
            try {
                return g.table.hostArray(address);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("acc4j: " + routine + ": " + e.getMessage(), e);
            }
        });
    }

    @Override
    public void copyoutFinalize(Object array) {
        withTable("Acc.copyoutFinalize", false, array, t -> t.exitDynamic(array, Clause.COPYOUT, true));
    }

    @Override
    public void deleteFinalize(Object array) {
        withTable("Acc.deleteFinalize", true, array, t -> t.exitDynamic(array, Clause.DELETE, true));
    }

    // ------------------------------------------------------------------ Backend: async queues (org.acc4j.runtime.async)

    @Override
    public void copyin(Object array, int queue) {
        withQueue("Acc.copyinAsync", array, queue, org.acc4j.runtime.async.QueuedData::copyin, () -> copyin(array));
    }

    @Override
    public void create(Object array, int queue) {
        withQueue("Acc.createAsync", array, queue, org.acc4j.runtime.async.QueuedData::create, () -> create(array));
    }

    @Override
    public void copyout(Object array, int queue) {
        withQueue("Acc.copyoutAsync", array, queue, org.acc4j.runtime.async.QueuedData::copyout, () -> copyout(array));
    }

    @Override
    public void delete(Object array, int queue) {
        withQueue("Acc.deleteAsync", array, queue, org.acc4j.runtime.async.QueuedData::delete, () -> delete(array));
    }

    @Override
    public void updateDevice(Object array, int queue) {
        withQueue("Acc.updateDeviceAsync", array, queue, org.acc4j.runtime.async.QueuedData::updateDevice, () -> updateDevice(array));
    }

    @Override
    public void updateHost(Object array, int queue) {
        withQueue("Acc.updateHostAsync", array, queue, org.acc4j.runtime.async.QueuedData::updateHost, () -> updateHost(array));
    }

    @Override
    public void waitQueue(int queue) {
        org.acc4j.Acc.checkQueue("Acc.wait", queue);
        Gpu g = gpu();
        if (g != null && queue != org.acc4j.Acc.ASYNC_SYNC && g.guard.lost() == null) {
            g.guard.run("Acc.wait(" + queue + ")", () -> {
                g.launcher.queues().finish(queue);
                return null;
            });
        }
    }

    @Override
    public void waitAsync(int[] queues, int queue) {
        Gpu g = gpu();
        if (g != null && g.guard.lost() == null) {
            g.guard.run("Acc.waitAsync(" + java.util.Arrays.toString(queues) + ", " + queue + ")", () -> {
                g.launcher.queues().waitOn(queues, queue);
                return null;
            });
        }
    }

    @Override
    public boolean asyncTest(int queue) {
        org.acc4j.Acc.checkQueue("Acc.asyncTest", queue);
        Gpu g = gpu();
        return g == null || queue == org.acc4j.Acc.ASYNC_SYNC || g.guard.lost() != null
                || g.guard.run("Acc.asyncTest(" + queue + ")", () -> g.launcher.queues().test(queue));
    }

    @Override
    public boolean asyncTestAll() {
        Gpu g = gpu();
        return g == null || g.guard.lost() != null || g.guard.run("Acc.asyncTestAll", () -> g.launcher.queues().testAll());
    }

    /** A data routine on a queue; {@code ASYNC_SYNC} is the synchronous routine. */
    private void withQueue(String routine, Object array, int queue, QueueOp op, Runnable synchronous) {
        org.acc4j.Acc.checkQueue(routine, queue);
        if (queue == org.acc4j.Acc.ASYNC_SYNC) {
            synchronous.run();
            return;
        }
        Gpu g = gpu();
        if (g == null) {
            // no queues without a device: the routine acts at once (the multicore target's counts)
            synchronous.run();
            return;
        }
        if (g.guard.lost() == null && g.guard.lostArray(array) == null) {
            try {
                g.guard.run(routine + "(" + queue + ") of " + HostArrays.describe(array), () -> {
                    op.run(g.table, g.launcher.queues().get(queue), array);
                    return null;
                });
                return;
            } catch (DeviceLostException e) {
                // lost meanwhile: as on the host, below
            }
        }
        // a lost device (the routine acts as on the host), or an array whose device-side changes a fault lost (the
        // synchronous routine refuses it, or forgets the loss for Acc.deleteAsync)
        synchronous.run();
    }

    /** One of {@link org.acc4j.runtime.async.QueuedData}'s routines. */
    @FunctionalInterface
    private interface QueueOp {
        void run(PresentTable table, org.acc4j.runtime.async.Queue queue, Object array);
    }

    /**
     * A synchronous data routine under the device lock, after every queue. Once the device is lost it acts as on the
     * host. An array whose device-side changes a fault lost is refused, except by a delete ({@code deletes}), which
     * says the device copy is not wanted and forgets the loss.
     */
    private void withTable(String routine, boolean deletes, Object array,
                           java.util.function.Consumer<PresentTable> op) {
        Gpu g = gpu();
        if (g == null) {
            org.acc4j.runtime.data.SharedPresence s = shared;
            if (s != null && array != null) {
                // shared memory: nothing moves, the counts follow OpenACC's rules
                switch (routine) {
                    case "Acc.copyin", "Acc.create" -> s.enter(array, false);
                    case "Acc.copyout", "Acc.delete" -> s.exit(array, false, false);
                    case "Acc.copyoutFinalize", "Acc.deleteFinalize" -> s.exit(array, false, true);
                    default -> { }
                }
            }
            return;
        }
        String what = routine + " of " + HostArrays.describe(array);
        if (g.guard.lost() == null) {
            try {
                if (deletes) {
                    g.guard.forgetLost(array);
                } else {
                    String lost = g.guard.lostArray(array);
                    if (lost != null) {
                        throw DeviceLostException.array(routine, lost, null);
                    }
                }
                g.guard.run(what, () -> {
                    // a synchronous routine sees everything queued before it
                    g.launcher.queues().finishAll();
                    op.accept(g.table);
                    return null;
                });
                return;
            } catch (DeviceLostException e) {
                if (e.array() != null) {
                    throw e;
                }
            }
        }
        // the device is lost: the routine acts as on the host, but refuses an array whose device-side changes
        // were lost (Acc.delete says they are not wanted)
        if (deletes) {
            g.guard.forgetLost(array);
            return;
        }
        String lost = g.guard.lostArray(array);
        if (lost != null) {
            throw DeviceLostException.array(routine, lost, g.guard.lost());
        }
    }

    // ------------------------------------------------------------------ for the runtime's own tests

    /**
     * Loads {@code ptx} through the kernel cache and runs its kernel {@code entry} (no parameters) on one thread
     * through the {@link Guard}, waiting for it when {@code wait}: how the fault-recovery test makes a kernel trap.
     * Package-private: not reachable from applications, and no setting switches it on.
     */
    void launchForTest(String ptx, String entry, boolean wait) {
        Gpu g = gpu();
        if (g == null) {
            throw new IllegalStateException("no device");
        }
        g.guard.run("the test kernel " + entry, () -> {
            org.acc4j.runtime.cuda.Module module = g.cache.module("test:" + entry + ":" + ptx.hashCode(), ptx, entry);
            module.function(entry).launch(1, 1, new org.acc4j.runtime.cuda.KernelArgs(), "test kernel");
            if (wait) {
                g.context.synchronize("kernel " + entry);
            }
            return null;
        });
    }

    /** The number of times the device was rebuilt after a fault, for tests; 0 without a device. */
    int rebuildsForTest() {
        Gpu g = gpu();
        return g == null ? 0 : g.guard.rebuilds();
    }
}
