package org.acc4j.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.Diagnostic;
import org.acc4j.compiler.plan.AsyncClause;
import org.acc4j.compiler.plan.CacheKey;
import org.acc4j.compiler.plan.DataUse;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.MethodLaunch;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.Module;
import org.acc4j.runtime.profile.Profiler;

/**
 * Compiles {@code @Kernels} methods on their first call, loads their kernels through the cache, and runs
 * later calls. A method that cannot be offloaded is remembered with its reason, so it is compiled once.
 */
public final class Offloader implements Sites.Runner {
    /** What happened to a call. */
    public record Outcome(boolean onDevice, String reason, boolean firstTime, Object value) {
        public Outcome(boolean onDevice, String reason, boolean firstTime) {
            this(onDevice, reason, firstTime, null);
        }
    }

    /** Loads of a method's kernels in a row that a device rebuild may undo before the call gives up. */
    private static final int LOADS = 3;

    private final Device device;
    private final KernelCache cache;
    private final Launcher launcher;
    private final Guard guard;
    private final java.util.function.Consumer<String> report;
    private final Profiler profile;
    private final boolean hoistChecks;
    private final ConcurrentHashMap<String, Object> methods = new ConcurrentHashMap<>();
    /**
     * The launch sites' nests (an {@link OffloadedMethod} or the {@link Diagnostic} why not), by plan number and site
     * index: a call reads two arrays. Written under this table's lock, each row replaced whole.
     */
    private volatile Object[][] siteMethods = new Object[0][];
    private final ConcurrentHashMap<String, List<DataUse>> dataRegions = new ConcurrentHashMap<>();
    private final java.util.Set<String> reported = ConcurrentHashMap.newKeySet();
    private final java.nio.file.Path dump;
    private final List<java.nio.file.Path> sourcePath;

    /**
     * @param guard the device lock and fault handling every launch and module load goes through; null only where
     *              nothing is launched (data regions in tests)
     * @param report takes the compile report's lines (the compiler's decisions, then each kernel's resources)
     * @param profile the time profile, or null when profiling is off
     */
    public Offloader(Device device, KernelCache cache, Launcher launcher, Guard guard,
                     java.util.function.Consumer<String> report, Profiler profile) {
        this(device, cache, launcher, guard, report, profile, null, null, true);
    }

    /**
     * @param guard the device lock and fault handling every launch and module load goes through; null only where
     *              nothing is launched (data regions in tests)
     * @param report takes the compile report's lines (the compiler's decisions, then each kernel's resources)
     * @param profile the time profile, or null when profiling is off
     * @param dump a directory to write each compiled method's kernels into, as PTX with the Java source lines and as
     *     CUDA C ({@link org.acc4j.compiler.cudac.KernelDump}); null for none
     * @param sourcePath where the dump looks for the Java sources ({@code dir1:dir2}); null for none
     * @param hoistChecks whether kernels whose bounds checks the host can prove get a variant without them (launched
     *     when the proofs hold); false keeps every check in the kernel
     */
    public Offloader(Device device, KernelCache cache, Launcher launcher, Guard guard,
                     java.util.function.Consumer<String> report, Profiler profile, java.nio.file.Path dump,
                     String sourcePath, boolean hoistChecks) {
        this.device = device;
        this.hoistChecks = hoistChecks;
        this.cache = cache;
        this.launcher = launcher;
        this.guard = guard;
        this.report = report;
        this.dump = dump;
        this.sourcePath = org.acc4j.compiler.cudac.KernelDump.sourcePath(sourcePath);
        this.profile = profile;
    }

    /**
     * Runs the call on the device, or says why it must run on the host (the reason is new only once). Any thread may
     * call; launches are serialised by the {@link Guard}.
     *
     * @throws org.acc4j.runtime.cuda.DeviceFaultException when the device faulted (it was rebuilt)
     */
    public Outcome run(Class<?> owner, String name, String desc, Object self, Object[] args) {
        if (profile == null) {
            return runCall(owner, name, desc, self, args);
        }
        try (Profiler.Scope scope = profile.enter(Profiler.Kind.KERNELS, owner, name, desc)) {
            Outcome o = runCall(owner, name, desc, self, args);
            if (!o.onDevice()) {
                scope.ranOnHost();
            }
            return o;
        }
    }

    private Outcome runCall(Class<?> owner, String name, String desc, Object self, Object[] args) {
        // keyed by the class itself: two class loaders' classes of one name have plans of their own
        String key = owner.getName() + "@" + Integer.toHexString(System.identityHashCode(owner)) + "." + name + desc;
        for (int load = 1; ; load++) {
            Object m = methods.computeIfAbsent(key, k -> prepare(owner, name, desc));
            if (m instanceof Diagnostic d) {
                return new Outcome(false, "runs on the host: " + d, reported.add(key));
            }
            OffloadedMethod om = (OffloadedMethod) m;
            try {
                // checked under the device lock, so a rebuild cannot come between the check and the launch
                Object[] value = guard.call(om.displayName(), () -> om.stale() ? null
                        : new Object[] {launcher.run(om, self, args)});
                if (value != null) {
                    return new Outcome(true, null, false, javaValue(value[0], desc));
                }
                // its kernels were loaded before the device was rebuilt: load them again
                methods.remove(key, om);
                if (load == LOADS) {
                    String reason = "runs on the host for this call: the device was rebuilt " + LOADS
                            + " times while its kernels were loading";
                    return new Outcome(false, om.displayName() + " " + reason, reported.add(key + reason));
                }
            } catch (Launcher.HostInstead h) {
                String reason = "runs on the host for this call: " + h.getMessage();
                return new Outcome(false, om.displayName() + " " + reason, reported.add(key + "|" + h.kind()));
            }
        }
    }

    /**
     * Runs launch site {@code site} of {@code plan} on the device inside {@code scope}: the live-out values (boxed,
     * possibly none), or {@link Launcher.HostInstead} when the nest must run on the host this time. The nest is
     * prepared (compiled for this device, if the plan's compute capability is not the device's) on its first call.
     * Call under the {@link Guard}.
     */
    @Override
    public boolean raisedByKernel(Throwable t) {
        return launcher.raisedByKernel(t);
    }

    @Override
    public Object[] runSite(int planId, MethodPlan plan, int site, Class<?> owner, Object self, Object[] values,
                            Launcher.Scope scope) throws Launcher.HostInstead {
        for (int load = 1; ; load++) {
            // looked up by number: a call builds no key
            Object[][] t = siteMethods;
            Object m = planId < t.length && t[planId] != null ? t[planId][site] : null;
            if (m == null) {
                m = siteMethod(plan, planId, site, owner);
            }
            if (m instanceof Diagnostic d) {
                throw new Launcher.HostInstead(d.construct(), "compile");
            }
            OffloadedMethod om = (OffloadedMethod) m;
            if (!om.stale()) {
                Object out = launcher.run(om, self, values, scope);
                return out == null ? NO_VALUES : (Object[]) out;
            }
            forgetSite(planId, site, om);
            if (load == LOADS) {
                throw new Launcher.HostInstead("the device was rebuilt " + LOADS + " times while its kernels were loading");
            }
        }
    }

    private static final Object[] NO_VALUES = new Object[0];

    /** The nest of site {@code site} of plan {@code planId}, prepared now if it has not been. */
    private Object siteMethod(MethodPlan plan, int planId, int site, Class<?> owner) {
        synchronized (siteLock) {
            Object[][] t = siteMethods;
            Object m = planId < t.length && t[planId] != null ? t[planId][site] : null;
            if (m != null) {
                return m;
            }
            m = prepareSite(plan, site, owner);
            Object[][] next = java.util.Arrays.copyOf(t, Math.max(t.length, planId + 1));
            Object[] row = next[planId] == null ? new Object[plan.sites().size()] : next[planId].clone();
            row[site] = m;
            next[planId] = row;
            siteMethods = next;
            return m;
        }
    }

    /** Forgets site {@code site}'s nest when it is still {@code m} (its kernels were loaded before a rebuild). */
    private void forgetSite(int planId, int site, Object m) {
        synchronized (siteLock) {
            Object[][] t = siteMethods;
            if (planId < t.length && t[planId] != null && t[planId][site] == m) {
                Object[][] next = t.clone();
                next[planId] = t[planId].clone();
                next[planId][site] = null;
                siteMethods = next;
            }
        }
    }

    private final Object siteLock = new Object();

    private Object prepareSite(MethodPlan plan, int index, Class<?> owner) {
        MethodPlan.Site site = plan.sites().get(index);
        int sm = device.computeMajor() * 10 + device.computeMinor();
        long t0 = System.nanoTime();
        CompiledMethod compiled;
        if (sm == org.acc4j.compiler.site.Planner.PLAN_SM) {
            compiled = site.compiled().method();
        } else {
            Compiler.Result r = Compiler.compileOutputs(plan.compileClass(), site.method(), sm,
                    internalName -> classFile(owner.getClassLoader(), internalName), site.compiled().method().outputs());
            if (r instanceof Compiler.Host h) {
                return h.reason();
            }
            compiled = ((Compiler.Offload) r).method();
        }
        if (profile != null) {
            profile.compiled(System.nanoTime() - t0, 0);
        }
        if (dump != null) {
            dump(compiled);
        }
        String simple = plan.displayName() + " (" + plan.source() + ":" + site.line() + ")";
        OffloadedMethod.Loader loader = (k, withoutChecks) -> {
            long l0 = System.nanoTime();
            Function f = load(compiled.body().sourceFile(), k, "site", k.ptx(withoutChecks), k.entry(withoutChecks),
                    k.dynamicShared(withoutChecks));
            if (profile != null) {
                long compiling = cache.lastCompileNanos();
                profile.compiled(compiling, System.nanoTime() - l0 - compiling);
            }
            return f;
        };
        return new OffloadedMethod(simple, compiled, loader, hoistChecks, new Sources(owner), AsyncClause.SYNC);
    }

    /** The evaluator's value as the method's return type gives it (booleans, bytes, shorts and chars compute as int). */
    public static Object javaValue(Object value, String desc) {
        if (value == null) {
            return null;
        }
        return switch (desc.charAt(desc.indexOf(')') + 1)) {
            case 'Z' -> (Integer) value != 0;
            case 'B' -> (byte) (int) (Integer) value;
            case 'S' -> (short) (int) (Integer) value;
            case 'C' -> (char) (int) (Integer) value;
            default -> value;
        };
    }

    /** The explicit clauses of a {@code @Data} method, resolved once. */
    public List<DataUse> dataClauses(Class<?> owner, String name, String desc) {
        return dataRegions.computeIfAbsent(owner.getName() + "." + name + desc,
                k -> MethodLaunch.dataRegion(classFile(owner), name, desc));
    }

    /** The arrays the {@code @Data} clauses of a method name, as this call gives them (null ones left out). */
    public List<Object> regionArrays(Class<?> owner, String name, String desc, Object self, Object[] args) {
        List<Object> arrays = new ArrayList<>();
        Sources sources = new Sources(owner);
        for (DataUse c : dataClauses(owner, name, desc)) {
            Object array = sources.value(c.source(), self, args);
            if (array != null) {
                arrays.add(array);
            }
        }
        return arrays;
    }

    /**
     * Enters the data region of a {@code @Data} method; the token goes to {@link #exitRegion}. A two-dimensional
     * array enters with its rows (see {@link org.acc4j.runtime.data.PresentTable}); a null array or row throws
     * {@link NullPointerException} naming it, and data that does not fit {@link
     * org.acc4j.runtime.data.OutOfDeviceMemoryException} naming it, after the arrays entered so far are exited again
     * (their buffers freed). Call it under the {@link Guard}.
     */
    public Object enterRegion(Class<?> owner, String name, String desc, Object self, Object[] args,
                              org.acc4j.runtime.data.PresentTable table) {
        Profiler.Scope scope = profile == null ? null : profile.enter(Profiler.Kind.DATA, owner, name, desc);
        List<Object[]> entered = new ArrayList<>();
        try {
            List<DataUse> clauses = dataClauses(owner, name, desc);
            Sources sources = new Sources(owner);
            for (DataUse c : clauses) {
                Object array = sources.value(c.source(), self, args);
                if (array == null) {
                    throw new NullPointerException("acc4j: the array " + c.name() + " named in @Data of "
                            + owner.getSimpleName() + "." + name + " is null");
                }
                int nullRow = org.acc4j.runtime.data.HostArrays.nullRow(array);
                if (nullRow >= 0) {
                    throw new NullPointerException("acc4j: row " + nullRow + " of the array " + c.name()
                            + " named in @Data of " + owner.getSimpleName() + "." + name + " is null");
                }
                org.acc4j.runtime.data.Clause clause = org.acc4j.runtime.data.Clause.valueOf(c.kind().name());
                try {
                    table.enter(array, clause);
                } catch (org.acc4j.runtime.data.OutOfDeviceMemoryException e) {
                    throw e.in("the array " + c.name() + " named in @Data of " + owner.getSimpleName() + "."
                            + name);
                }
                entered.add(new Object[] {array, clause});
            }
        } catch (RuntimeException e) {
            try {
                exit(entered, table);
            } finally {
                if (scope != null) {
                    scope.close();
                }
            }
            throw e;
        }
        return new RegionToken(entered, scope);
    }

    /** What {@link #enterRegion} hands to {@link #exitRegion}: the arrays entered with their clauses, the profile's scope. */
    private record RegionToken(List<Object[]> entered, Profiler.Scope scope) {
    }

    /** Exits a data region entered by {@link #enterRegion}, in reverse order. */
    public void exitRegion(Object token, org.acc4j.runtime.data.PresentTable table) {
        RegionToken t = (RegionToken) token;
        try {
            exit(t.entered(), table);
        } finally {
            if (t.scope() != null) {
                t.scope().close();
            }
        }
    }

    private static void exit(List<Object[]> entered, org.acc4j.runtime.data.PresentTable table) {
        for (int i = entered.size() - 1; i >= 0; i--) {
            table.exit(entered.get(i)[0], (org.acc4j.runtime.data.Clause) entered.get(i)[1]);
        }
    }

    private Object prepare(Class<?> owner, String name, String desc) {
        byte[] bytes;
        try {
            bytes = classFile(owner);
        } catch (IllegalStateException e) {
            return new Diagnostic(owner.getName().replace('.', '/'), name, null, 0, e.getMessage());
        }
        int sm = device.computeMajor() * 10 + device.computeMinor();
        long t0 = System.nanoTime();
        ClassLoader classLoader = owner.getClassLoader();
        CacheKey cacheKey = new CacheKey(owner.getName().replace('.', '/'), bytes,
                internalName -> classFile(classLoader, internalName));
        Compiler.Result r = Compiler.compile(bytes, name, desc, sm, cacheKey::classFile);
        long compiled = System.nanoTime();
        if (r instanceof Compiler.Host h) {
            if (profile != null) {
                profile.compiled(compiled - t0, 0);
            }
            return h.reason();
        }
        CompiledMethod plan = ((Compiler.Offload) r).method();
        for (String line : plan.report()) {
            report.accept(line);
        }
        if (!hoistChecks && plan.kernels().stream().anyMatch(k -> k.unchecked() != null)) {
            report.accept(plan.body().displayName() + ": acc4j.hoist is off: every bounds check stays in the kernel");
        }
        if (dump != null) {
            dump(plan);
        }
        String key = cacheKey.of(name, desc, sm, "");
        String simple = owner.getSimpleName() + "." + name;
        if (profile != null) {
            profile.compiled(compiled - t0, 0);
        }
        // each variant is loaded on its first launch, under the device lock, inside the call's profile scope
        OffloadedMethod.Loader loader = (k, withoutChecks) -> {
            long l0 = System.nanoTime();
            Function f = load(plan.body().sourceFile(), k, key + "#" + k.ordinal() + (withoutChecks ? "nc" : ""),
                    k.ptx(withoutChecks), k.entry(withoutChecks), k.dynamicShared(withoutChecks));
            if (profile != null) {
                long compiling = cache.lastCompileNanos();
                profile.compiled(compiling, System.nanoTime() - l0 - compiling);
            }
            return f;
        };
        return new OffloadedMethod(simple, plan, loader, hoistChecks, new Sources(owner),
                AsyncClause.of(bytes, name, desc));
    }

    /**
     * Loads one kernel (the cache keeps its module, keyed by the PTX itself: classes with byte-identical methods have
     * kernels of different names), allows it {@code dynamicShared} bytes of dynamic shared memory per block, and
     * reports its resources.
     */
    private Function load(String sourceFile, LaunchPlan k, String key, String ptx, String entry, int dynamicShared) {
        Function f = cache.module(key + "#" + KernelCache.keyOf(ptx), ptx, entry).function(entry)
                .withDynamicShared(dynamicShared);
        report.accept(resources(sourceFile, k.line(), entry, f.registers(), f.sharedBytes(), dynamicShared,
                f.localBytes(), f.maxThreadsPerBlock()));
        return f;
    }

    /** The bytes of a class the compiler inlines from, read through the caller's class loader; null if absent. */
    static byte[] classFile(ClassLoader loader, String internalName) {
        try (InputStream in = loader != null ? loader.getResourceAsStream(internalName + ".class")
                : ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /** Writes the method's kernels to the dump directory; a failure is said on stderr and changes nothing else. */
    private void dump(CompiledMethod plan) {
        try {
            for (java.nio.file.Path file : org.acc4j.compiler.cudac.KernelDump.write(dump, plan, sourcePath)) {
                report.accept("dumped " + file);
            }
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("acc4j: cannot dump the kernels of " + plan.body().displayName() + " into " + dump + ": " + e);
        }
    }

    /**
     * The report's line on a loaded kernel's resources, as the driver gives them ({@code cuFuncGetAttribute}), in
     * the style of {@code -Minfo=accel}'s ptxas lines.
     */
    static String resources(String sourceFile, int line, String entry, int registers, int sharedBytes,
                            int dynamicShared, int localBytes, int maxThreadsPerBlock) {
        return (sourceFile != null ? sourceFile : "?") + (line > 0 ? ":" + line : "") + ": kernel " + entry + ": "
                + registers + " registers, " + sharedBytes + " bytes shared memory (static)"
                + (dynamicShared > 0 ? " and " + dynamicShared + " (dynamic)" : "") + ", " + localBytes
                + " bytes local memory per thread, at most " + maxThreadsPerBlock + " threads per block";
    }

    static byte[] classFile(Class<?> owner) {
        ClassLoader loader = owner.getClassLoader();
        String resource = owner.getName().replace('.', '/') + ".class";
        try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                : ClassLoader.getSystemResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the class file of " + owner.getName() + " cannot be read from its class loader");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("the class file of " + owner.getName() + " cannot be read: " + e.getMessage());
        }
    }
}
