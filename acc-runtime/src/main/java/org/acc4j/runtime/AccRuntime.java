package org.acc4j.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.data.OutOfDeviceMemoryException;
import org.acc4j.runtime.data.SharedPresence;
import org.acc4j.runtime.launch.CallClock;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.Multicore;
import org.acc4j.runtime.launch.Offloader;
import org.acc4j.runtime.launch.Sites;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.profile.Profiler;
import org.acc4j.runtime.profile.ProfileFormat;
import org.acc4j.spi.Backend;

/**
 * The runtime: the one singleton of acc4j, started on first use and stopped by {@link #shutdown()} or at exit.
 *
 * <p>Started on a GPU, it holds a {@link Gpu}, which owns the device's context, the present table, the kernel
 * cache and the launcher, and releases them in reverse order. Where there is no usable GPU (no driver, no device,
 * an {@code ACC_DEVICE_NUM} beyond the device count) it starts the multicore target, and with
 * {@code ACC_DEVICE_TYPE=host} every region runs as plain Java; it says which once through {@link Log}.
 *
 * <p>With profiling on ({@link Options#profiling()}) it also owns a {@link Profiler}, from start-up to
 * {@link #shutdown()}, which prints it to stderr and writes its JSON file (shutdown runs at exit too).
 *
 * <p>Any thread may call in: every operation on the device goes through the {@link Guard}, which serialises them,
 * makes the context current on the calling thread and rebuilds the device after a sticky fault (the caller gets a
 * {@link org.acc4j.runtime.cuda.DeviceFaultException}). {@link #shutdown()} (also run at JVM exit) waits for the
 * operation in progress, then closes the {@link Gpu}.
 *
 * <p>The agent's advice calls the static entry points {@link #offload}, {@link #afterHost}, {@link #enterData} and
 * {@link #exitData} (their work is {@link Advice}'s), rewritten {@code @Kernels} methods call {@link #enterCall},
 * {@link #site} and {@link #exitCall}, and {@code Acc}'s routines are {@link #backend()}'s.
 */
public final class AccRuntime {
    private static final AccRuntime INSTANCE = new AccRuntime();

    /**
     * The multicore target, where there is no GPU and the device type is not {@code host}: its launcher, its present
     * counts (shared memory: nothing moves) and the reader of {@code @Data} clauses for them.
     */
    record Cores(Multicore target, SharedPresence shared, Offloader clauses) {
    }

    private final Object lock = new Object();
    private volatile boolean started;
    private volatile Gpu gpu;
    private volatile Cores cores;
    private volatile boolean report;
    /** The profile of this run of the runtime and the options that asked for it; null when profiling is off. */
    private volatile Profiler profile;
    private Options profileOptions;
    private boolean hookInstalled;
    /** The device {@code Acc.setDeviceNumber} chose, which wins over {@code ACC_DEVICE_NUM}; -1 for none. */
    private volatile int chosenDevice = -1;
    private final Advice advice = new Advice(this);
    private final Routines routines = new Routines(this);

    private AccRuntime() {
    }

    public static AccRuntime get() {
        return INSTANCE;
    }

    /** The {@code Acc} routines on this runtime, for {@link org.acc4j.Acc#install}. */
    public Backend backend() {
        return routines;
    }

    /** The GPU in use, starting the runtime if it has not started; null when there is no GPU in use. */
    Gpu gpu() {
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

    /** The GPU in use if the runtime has started on one, else null; starts nothing. */
    Gpu gpuIfStarted() {
        return gpu;
    }

    /** The multicore target, starting the runtime if it has not started; null when it is not the target. */
    Cores cores() {
        gpu();
        return cores;
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
        Profiler p = null;
        if (options.profiling()) {
            p = new Profiler(System::nanoTime);
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
            Gpu s = Gpu.open(d, options, p, report ? AccRuntime::printReport : null);
            if (p != null) {
                p.device(d.name() + " (device " + d.ordinal() + ", " + d.smTarget() + "; CUDA start-up "
                        + String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e6)
                        + " ms" + (background ? ", in the background" : "") + ")");
            }
            gpu = s;
            Log.debug("offloading to " + d.name() + " (" + d.smTarget() + ", " + d.multiprocessors() + " SMs)");
            if (report) {
                printReport("offloading to " + d.name() + " (" + d.smTarget() + ", " + d.multiprocessors() + " SMs)");
            }
            installHook();
        } catch (LinkageError | DriverException | OutOfDeviceMemoryException e) {
            multicore(options, p, "the CUDA driver could not be used (" + firstLine(e) + ")", true);
        }
    }

    /**
     * Starts the multicore target and says so once, with its thread count: {@code why} is the setting that chose it, or
     * why there is no GPU ({@code warn}).
     */
    private void multicore(Options options, Profiler p, String why, boolean warn) {
        int threads = options.threads();
        String threadText = threads + " thread" + (threads == 1 ? "" : "s") + " ("
                + (options.cores() > 0 ? options.given("ACC_NUM_CORES") : "every core") + ")";
        String message = why + ": @Kernels methods run on the host's cores (multicore), " + threadText
                + (warn ? "; ACC_DEVICE_TYPE=host runs them as plain Java on the calling thread" : "");
        if (warn) {
            Log.warning(message);
        } else {
            Log.info(message);
        }
        if (report) {
            printReport("multicore target: " + threadText);
        }
        cores = new Cores(new Multicore(threads, p, report ? AccRuntime::printReport : null), new SharedPresence(),
                new Offloader(null, null, null, null, line -> { }, null));
        if (p != null) {
            p.device(org.acc4j.runtime.profile.ProfileFormat.MULTICORE + ", " + threadText + "): " + why);
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
    static String devicesThere(int count) {
        return "there " + (count == 1 ? "is 1 CUDA device" : "are " + count + " CUDA devices") + " (numbered from 0)";
    }

    private static void noDevice(Profiler p, String why) {
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
    static void printReport(String line) {
        if (Log.quiet()) {
            return;
        }
        System.err.println("acc4j: " + line);
    }

    // ------------------------------------------------------------------ entry points of rewritten @Kernels methods

    private final Sites sites = new Sites(this::siteParts, this::siteMulticore, () -> report, AccRuntime::printReport);

    private Multicore siteMulticore() {
        Cores c = cores();
        return c == null ? null : c.target();
    }

    /** The multicore target's thread count, or 0 when nests do not run on it (a GPU, or plain Java). */
    public int multicoreThreads() {
        Cores c = cores();
        return c == null ? 0 : c.target().threads();
    }

    private Sites.Parts siteParts() {
        Gpu s = gpu();
        if (s == null || s.lost() != null) {
            return null;
        }
        // made once per run of the runtime: a call allocates no parts of its own
        Sites.Parts p = parts;
        if (p == null || p.guard() != s.guard) {
            p = new Sites.Parts(s.guard, s.offloader, s.table);
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

    /** Whether a rewritten method other than the runtime's own warm-up has been called (set once). */
    private volatile boolean applicationCalled;

    /** Whether the runtime was asked to start in the background (the agent does, at JVM start). */
    private volatile boolean startingInBackground;
    /** Compiles registered kernels before their first call; made on first use. */
    private java.util.concurrent.ExecutorService ahead;
    private final Object aheadLock = new Object();

    /**
     * Compiles the kernels of a plan just registered on a low-priority daemon thread (into the cubin cache, or loaded
     * through the driver's JIT when the cubin cache is off), so that the JIT's work overlaps the application's until
     * the first call. Only where the runtime is starting or started (it is not started for this) and the device is the
     * one the plan's kernels were compiled for. The checked variant comes after the one without proven checks. It
     * stops once the application has made its first call: the driver's JIT holds the context's lock for the whole of
     * a module's compile (tens of milliseconds for a large kernel), and a call that records an event meanwhile (every
     * launch with the time profile on, every launch the tuner times) waited for it, call after call; from then on a
     * kernel not loaded yet loads at its own first call.
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
                if (g == null || g.lost() != null
                        || g.device.computeMajor() * 10 + g.device.computeMinor()
                        != org.acc4j.compiler.site.Planner.PLAN_SM) {
                    return;
                }
                g.context.makeCurrent();
                for (MethodPlan.Site site : plan.sites()) {
                    for (org.acc4j.compiler.KernelPlan k : site.compiled().method().kernels()) {
                        if (applicationCalled) {
                            // the application's calls have the device now
                            return;
                        }
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
        if (CallClock.ON) {
            CallClock.start();
        }
        if (!INSTANCE.applicationCalled && !Log.quiet()) {
            INSTANCE.applicationCalled = true;
        }
        Object call = INSTANCE.sites.enter(owner, self, plan, args, handles, INSTANCE.regions);
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.ENTER);
        }
        return call;
    }

    /** Enters a rewritten method's {@code @Data} region: one object, so that a call's start allocates no lambda. */
    private final Sites.Region regions = (owner, p, self, args) -> enterData(owner, p.name(), p.descriptor(), self,
            args);

    /** A launch site: the live-out values when the device ran the nest, or null to run its bytecode on the host. */
    public static Object[] site(Object call, int site, Object[] values) {
        return INSTANCE.sites.site(call, site, values);
    }

    /**
     * Called once by a rewritten {@code @Kernels} method after {@link #enterCall}: whether its host code's element
     * accesses are followed for this call (a call with a data scope on the device); when not, the method skips the
     * calls below.
     */
    public static boolean followsHost(Object call) {
        return INSTANCE.sites.followsHost(call);
    }

    /**
     * Called by a rewritten {@code @Kernels} method before its host code reads an element of {@code array}: when a
     * kernel of the call changed the array's device copy (for a row, the copy of its two-dimensional array), the row
     * or array is copied to the host first. Reads a field or two otherwise.
     */
    public static void hostRead(Object array, Object call) {
        INSTANCE.sites.hostRead(call, array);
    }

    /**
     * Called by a rewritten {@code @Kernels} method before its host code writes element {@code index} of {@code
     * array}: the elements the host writes go to the device before the call's next kernel.
     */
    public static void hostWrite(Object array, int index, Object call) {
        INSTANCE.sites.hostWrite(call, array, index);
    }

    /**
     * Called by a rewritten {@code @Kernels} method before its host code stores {@code row} at {@code index} of the
     * two-dimensional {@code array}: the row it replaces is brought to the host if a kernel changed it, and the
     * array's row table is rebuilt before its next kernel.
     */
    public static void hostRowStore(Object array, int index, Object row, Object call) {
        INSTANCE.sites.hostRowStore(call, array, index, row);
    }

    /** The normal end of a call of a rewritten method. */
    public static void exitCall(Object call) {
        INSTANCE.sites.exit(call, INSTANCE.exitRegion);
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.EXIT);
        }
    }

    private final java.util.function.Consumer<Object> exitRegion = AccRuntime::exitData;

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
     * Runs a {@code @Kernels} call on the device: a one-element array holding the method's value (null for a void
     * method), or null when the original body must run (on the host).
     */
    public static Object[] offloadValue(Class<?> owner, String name, String desc, Object self, Object[] args) {
        return INSTANCE.advice.offloadValue(owner, name, desc, self, args);
    }

    /** After a {@code @Kernels} call ran on the host: device copies of its arrays get the host's values. */
    public static void afterHost(Class<?> owner, Object self, Object[] args) {
        INSTANCE.advice.afterHost(owner, self, args);
    }

    /** Enters the data region of a {@code @Data} method; null when there is no device. */
    public static Object enterData(Class<?> owner, String name, String desc, Object self, Object[] args) {
        return INSTANCE.advice.enterData(owner, name, desc, self, args);
    }

    /** Exits a data region entered by {@link #enterData}. */
    public static void exitData(Object token) {
        INSTANCE.advice.exitData(token);
    }

    // ------------------------------------------------------------------ implicit data regions around host loops

    private final LoopData loops = new LoopData(this);

    /**
     * Entry of an implicit data region, called by the agent's code before a host loop that calls {@code @Kernels}
     * methods: the arrays the loop's locals hold go to the device for the whole loop. Never throws for a region it
     * cannot make (the loop then runs as written); the token goes to {@link #exitLoopData}.
     */
    public static Object enterLoopData(Class<?> caller, String where, String callees, String fields,
                                       Object[] values) {
        return INSTANCE.loops.enter(caller, where, callees, fields, values);
    }

    /** Exit of an implicit data region, on every way out of its loop; a second exit does nothing. */
    public static void exitLoopData(Object token) {
        INSTANCE.loops.exit(token);
    }

    /** The agent received rewritten code for these {@code @Kernels} methods ({@code owner.namedescriptor}). */
    public static void installed(List<String> methods) {
        INSTANCE.loops.installed(methods);
    }

    /**
     * Called by the agent's code before the host reads an element of {@code array} (or of one of its rows) in a loop
     * wrapped in an implicit data region: when a kernel may have changed its device copy since the host last saw it,
     * it is copied to the host first. Does nothing when the loop has no region ({@code token} null), or when the
     * array is not one of the region's; otherwise reads a field or two unless a copy is due.
     */
    public static void loopRead(Object array, Object token) {
        LoopData.read(array, token);
    }

    /**
     * Called by the agent's code before the host writes element {@code index} of {@code array} in a loop wrapped in
     * an implicit data region: the window of elements the host wrote in the array (a row of a two-dimensional one)
     * goes to the device before the loop's next {@code @Kernels} call, or at the region's exit. Does nothing without
     * a region; otherwise reads a field or two unless the write lands away from the window of a stale array.
     */
    public static void loopWrite(Object array, int index, Object token) {
        LoopData.write(array, index, token);
    }

    /** Called by the agent's code before each {@code @Kernels} call in a loop wrapped in an implicit data region. */
    public static void loopCall(Object token) {
        LoopData.call(token);
    }

    /** How many implicit data regions this JVM has made (entered on the device). */
    public static long loopRegionsMade() {
        return INSTANCE.loops.made();
    }

    /** Whether the agent wraps host loops in implicit data regions ({@code ACC4J_LOOP_REGIONS}, on by default). */
    public static boolean loopRegionsEnabled() {
        return LoopData.enabled();
    }

    /** Whether the agent makes the runtime's warm-up call ({@code acc4j.warmup}, else {@code ACC4J_WARMUP}; on). */
    public static boolean warmupEnabled() {
        String v = System.getProperty("acc4j.warmup");
        if (v == null) {
            v = System.getenv("ACC4J_WARMUP");
        }
        return v == null || Options.switchValue(v) != Boolean.FALSE;
    }

    /** A line of the compile report from the agent, before the runtime may have started. */
    public static void agentNote(String line) {
        if (LoopData.reportAsked()) {
            printReport(line);
        }
    }

    /** Whether the compile report is on (the runtime has started). */
    boolean reporting() {
        return report;
    }

    // ------------------------------------------------------------------ lifecycle

    public String name() {
        Gpu s = gpu();
        Cores c = cores;
        int threads = c == null ? 0 : c.target().threads();
        return s != null ? s.device.name() : c != null ? "host (multicore, " + threads + " thread"
                + (threads == 1 ? "" : "s") + ")" : "host";
    }

    public void init() {
        gpu();
    }

    /** Begins starting the runtime on a daemon thread (the agent, at start-up); the first call waits for it. */
    public void startInBackground() {
        startInBackground(null);
    }

    /**
     * Begins starting the runtime on a daemon thread (the agent, at start-up), and once a GPU is in use runs
     * {@code warmup} there, a first call through the runtime's call path that the thread's report, profile and
     * messages leave out ({@link Log#quietOnThisThread}); the application's first call waits only for the start. When
     * the application has made a call of its own by then, that call has warmed the path and {@code warmup} is
     * skipped. Nothing {@code warmup} throws escapes.
     */
    public void startInBackground(Runnable warmup) {
        startingInBackground = true;
        Startup.inBackground(() -> {
            if (gpu() != null && warmup != null && !applicationCalled) {
                Log.quietOnThisThread(true);
                try {
                    warmup.run();
                } finally {
                    Log.quietOnThisThread(false);
                }
            }
        });
    }

    /**
     * Frees the device and ends this run of the runtime; with profiling on, prints the profile to stderr
     * ({@code acc4j.profile}) and writes its JSON file ({@code acc4j.profile.json}). Runs at exit too.
     */
    public void shutdown() {
        synchronized (lock) {
            Gpu g = gpu;
            Profiler p = profile;
            Options o = profileOptions;
            if (cores != null) {
                cores.target().close();
                cores = null;
            }
            gpu = null;
            profile = null;
            profileOptions = null;
            started = false;
            advice.reset();
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

    private static void emit(Profiler p, Options o) {
        Profiler.Snapshot s = p.snapshot();
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
    public String report() {
        gpu();
        Profiler p = profile;
        if (p == null) {
            return "acc4j: no profile: profiling is off (set -Dacc4j.profile=true or ACC4J_PROFILE=1, or name a JSON"
                    + " file with -Dacc4j.profile.json=path)\n";
        }
        return ProfileFormat.text(p.snapshot());
    }

    /** The profile of this run of the runtime, or null when profiling is off (for tests and tools). */
    public Profiler profile() {
        gpu();
        return profile;
    }

    public boolean onDevice() {
        return gpu() != null;
    }

    /**
     * Uses device {@code number} from now on: the runtime is shut down (nothing must be present, allocated or
     * queued on the current device) and started again on the chosen device; later starts keep the choice.
     */
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
            String busy = g.run("Acc.setDeviceNumber(" + number + ")", () -> {
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
            }, () -> null);
            if (busy != null) {
                throw new IllegalStateException("acc4j: Acc.setDeviceNumber(" + number + "): " + busy + " on device "
                        + g.device.ordinal() + " (" + g.device.name() + "); copy it out or delete it, free it, or"
                        + " wait first: data on one GPU cannot be reached from another");
            }
            chosenDevice = number;
            shutdown();
            gpu();
        }
    }

    static int deviceCountOrZero() {
        try {
            return Device.all().size();
        } catch (LinkageError | DriverException e) {
            return 0;
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

    /** Launches deferred so far on the device in use, for tests; 0 without a device. */
    long deferredForTest() {
        Gpu g = gpu();
        return g == null ? 0 : g.launcher.pending().launches();
    }

    /** Switches deferred launches on or off until the runtime starts again, for tests. */
    void deferForTest(boolean on) {
        Gpu g = gpu();
        if (g != null) {
            g.launcher.defer(on);
        }
    }

    /** The number of times the device was rebuilt after a fault, for tests; 0 without a device. */
    int rebuildsForTest() {
        Gpu g = gpu();
        return g == null ? 0 : g.guard.rebuilds();
    }
}
