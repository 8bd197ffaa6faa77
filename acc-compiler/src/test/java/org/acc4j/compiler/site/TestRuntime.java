package org.acc4j.compiler.site;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;

/**
 * The entry points rewritten methods call, for tests: a site either declines (the nest's bytecode runs) or, in
 * interpreting mode, runs the nest's kernels through the {@link KernelInterpreter} on the host's arrays, as the
 * device would (with its thread mapping, its reduction order and its race check). With the runtime's declines on
 * ({@link #interpretAsTheRuntime}), a site given a null array or row, or one array under two names, runs the nest's
 * bytecode, as the runtime runs it on the host; the sites declined while interpreting are recorded.
 */
public final class TestRuntime {
    /** The class's internal name, which the rewriter writes as the runtime's. */
    public static final String NAME = TestRuntime.class.getName().replace('.', '/');
    static final List<MethodPlan> PLANS = new ArrayList<>();
    static boolean interpret;
    /** When set, a null array or row, or one array under two names, declines a site as the runtime does. */
    private static boolean runtimeDeclines;
    /** Sites declined while interpreting, with their reasons (display name and line first). */
    private static final List<String> DECLINED = new ArrayList<>();
    static int launches;
    static int calls;
    static int exits;

    private TestRuntime() {
    }

    public static synchronized int register(MethodPlan p) {
        PLANS.add(p);
        return PLANS.size() - 1;
    }

    /** Every site interpreted from now on, and declined where the runtime would run its nest on the host. */
    public static synchronized void interpretAsTheRuntime() {
        interpret = true;
        runtimeDeclines = true;
    }

    /** The plans registered so far. */
    public static synchronized List<MethodPlan> plans() {
        return new ArrayList<>(PLANS);
    }

    /** The sites declined so far, each with its method's display name, its line and the reason. */
    public static synchronized List<String> declined() {
        return new ArrayList<>(DECLINED);
    }

    private static synchronized void declined(String line) {
        DECLINED.add(line);
    }

    private record Call(MethodPlan plan, Class<?> owner, Object self, CallDevice data) {
    }

    public static Object enterCall(Class<?> owner, Object self, int plan, Object[] args, Object[] handles) {
        calls++;
        MethodPlan p;
        synchronized (TestRuntime.class) {
            p = PLANS.get(plan);
        }
        return new Call(p, owner, self, simulateCalls ? new CallDevice() : null);
    }

    /** A null array or row, or one array under two names, among a site's values. */
    private static boolean nullOrAliased(Object[] values) {
        java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Object v : values) {
            boolean nullRow = v instanceof Object[] rows && java.util.Arrays.asList(rows).contains(null);
            if (v == null || nullRow || (v.getClass().isArray() && !seen.add(v))) {
                return true;
            }
        }
        return false;
    }

    public static Object[] site(Object call, int index, Object[] values) {
        if (!interpret) {
            return null;
        }
        Call c = (Call) call;
        MethodPlan.Site s = c.plan().sites().get(index);
        String where = c.plan().displayName() + " line " + s.line();
        if (runtimeDeclines && nullOrAliased(values)) {
            declined(where + ": a null array or row, or one array under two names");
            return null;
        }
        Region region = device;
        if (region != null) {
            region.settle();
        }
        CallDevice data = c.data();
        if (data != null) {
            data.beforeSite();
        }
        // fields of arrays' objects: gathered for this launch, written back after it, as the runtime does
        java.util.Map<ArrayRef.Source, Object> gathered = new java.util.HashMap<>();
        java.util.Map<ArrayRef.Source, Field> gatheredFields = new java.util.HashMap<>();
        java.util.Map<ArrayRef.Source, Object[]> gatheredObjects = new java.util.HashMap<>();
        try {
            Object r = KernelInterpreter.run(s.compiled().method(), source -> {
                if (source instanceof ArrayRef.Parameter p) {
                    return data != null ? data.adopt(values[p.index()]) : onDevice(values[p.index()]);
                }
                if (source instanceof ArrayRef.Gathered g) {
                    return gathered.computeIfAbsent(source, k -> {
                        Object[] objects = (Object[]) (g.objects() instanceof ArrayRef.Parameter p ? values[p.index()]
                                : field(c.owner(), g.objects().name(), c.self()));
                        if (g.field() == null) {
                            return new boolean[objects.length];
                        }
                        Field f;
                        try {
                            f = org.acc4j.compiler.plan.Gathering.resolve(Class.forName(g.owner().replace('/', '.'),
                                    false, c.owner().getClassLoader()), g.field());
                        } catch (ClassNotFoundException e) {
                            throw new IllegalStateException(e);
                        }
                        gatheredFields.put(source, f);
                        gatheredObjects.put(source, objects);
                        return org.acc4j.compiler.plan.Gathering.gather(objects, f);
                    });
                }
                ArrayRef.Field f = (ArrayRef.Field) source;
                Object v = field(c.owner(), f.name(), f.isStatic() ? null : c.self());
                return data != null ? data.adopt(v) : onDevice(v);
            }, values, 16);
            gatheredFields.forEach((k, f) -> org.acc4j.compiler.plan.Gathering.scatter(gatheredObjects.get(k), f,
                    gathered.get(k)));
            launches++;
            if (data != null) {
                data.afterSite(s.after());
            }
            return r == null ? new Object[0] : (Object[]) r;
        } catch (KernelInterpreter.HostInstead h) {
            declined(where + ": " + h.getMessage());
            if (data != null) {
                data.hostRuns();
            }
            if (region != null) {
                // the nest runs as bytecode on the host arrays: they are brought there first
                for (Object u : region.copies.keySet()) {
                    if (region.unit(u)) {
                        region.toHost(u);
                    }
                }
                region.hostRan = true;
            }
            return null;
        }
    }

    static Object field(Class<?> owner, String name, Object self) {
        for (Class<?> k = self != null ? self.getClass() : owner; k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(Modifier.isStatic(f.getModifiers()) ? null : self);
            } catch (NoSuchFieldException e) {
                // further up
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no field " + name);
    }

    public static void exitCall(Object call) {
        exits++;
        if (call instanceof Call c && c.data() != null) {
            c.data().close();
        }
    }

    public static Throwable exitCallThrown(Object call, Throwable thrown) {
        exits++;
        if (call instanceof Call c && c.data() != null) {
            c.data().close();
        }
        return thrown;
    }

    // ------------------------------------------------------------------ host code's element accesses in a call

    /**
     * When set (with {@link #interpret}), each call of a rewritten method keeps device copies of the arrays its sites
     * use ({@link CallDevice}): the kernels work on them, and host code sees their changes only through the hooks
     * before its element accesses (or, for what the hooks do not cover, through the sites' effects).
     */
    static boolean simulateCalls;
    /** Rows and arrays the call devices copied to the host and to the device, and row tables they rebuilt. */
    static int callUnitsToHost;
    static int callUnitsToDevice;
    static int rowTablesRebuilt;

    /**
     * A call's simulated device: a copy of each unit (a one-dimensional array or a row) a kernel used, and of each
     * two-dimensional array a table of its rows' copies, rebuilt when host code stored a row into it. A kernel makes
     * every unit it could reach stale on the host; a host read of a stale unit copies it back; host writes go to the
     * device before the next kernel. Host code the hooks do not cover is given the effects' conservative treatment:
     * every stale unit to the host, and after a write every unit to the device.
     */
    static final class CallDevice {
        final java.util.IdentityHashMap<Object, Object> copies = new java.util.IdentityHashMap<>();
        final java.util.Set<Object> stale = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final java.util.Set<Object> written = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final java.util.Set<Object> rowsChanged = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final List<Object> used = new ArrayList<>();
        boolean hostRan;

        /** The device's copy of {@code a} (made now from the host's, if it has none), or {@code a} itself. */
        Object adopt(Object a) {
            if (a == null || !a.getClass().isArray()) {
                return a;
            }
            if (a instanceof Object[] rows) {
                Object d = copies.get(a);
                boolean changed = rowsChanged.remove(a);
                if (d == null || changed) {
                    Object[] t = (Object[]) java.lang.reflect.Array.newInstance(a.getClass().getComponentType(),
                            rows.length);
                    for (int i = 0; i < rows.length; i++) {
                        t[i] = rows[i] == null ? null : unit(rows[i]);
                        used.add(rows[i]);
                    }
                    if (d != null) {
                        rowTablesRebuilt++;
                    }
                    copies.put(a, t);
                    d = t;
                } else {
                    used.addAll(java.util.Arrays.asList(rows));
                }
                return d;
            }
            used.add(a);
            return unit(a);
        }

        private Object unit(Object a) {
            Object d = copies.get(a);
            if (d == null) {
                d = cloneArray(a);
                copies.put(a, d);
                callUnitsToDevice++;
            }
            return d;
        }

        boolean isUnit(Object a) {
            return a != null && copies.containsKey(a) && !(a instanceof Object[]);
        }

        void beforeSite() {
            if (hostRan) {
                hostRan = false;
                for (Object u : copies.keySet()) {
                    if (isUnit(u)) {
                        toDevice(u);
                    }
                }
                written.clear();
            }
            for (Object u : written) {
                toDevice(u);
            }
            written.clear();
            used.clear();
        }

        void afterSite(List<Effect> after) {
            for (Object u : used) {
                if (isUnit(u)) {
                    stale.add(u);
                }
            }
            if (!after.isEmpty()) {
                // host code the hooks do not cover: everything to the host, and the host is the truth after a write
                allToHost();
                if (after.stream().anyMatch(Effect::write)) {
                    hostRan = true;
                }
            }
        }

        void hostRuns() {
            allToHost();
            hostRan = true;
        }

        void allToHost() {
            for (Object u : new ArrayList<>(stale)) {
                read(u);
            }
        }

        void read(Object a) {
            if (stale.remove(a)) {
                Object d = copies.get(a);
                System.arraycopy(d, 0, a, 0, java.lang.reflect.Array.getLength(a));
                callUnitsToHost++;
            }
        }

        void write(Object a) {
            read(a);
            if (isUnit(a)) {
                written.add(a);
            }
        }

        void rowStore(Object a, int index) {
            if (copies.containsKey(a) && index >= 0 && index < ((Object[]) a).length) {
                read(((Object[]) a)[index]);
                rowsChanged.add(a);
            }
        }

        void toDevice(Object u) {
            System.arraycopy(u, 0, copies.get(u), 0, java.lang.reflect.Array.getLength(u));
            callUnitsToDevice++;
        }

        void close() {
            beforeSite();
            allToHost();
        }
    }

    public static boolean followsHost(Object call) {
        return call instanceof Call c && c.data() != null;
    }

    public static void hostRead(Object array, Object call) {
        hookCalls++;
        if (call instanceof Call c && c.data() != null && !ignoreHooks) {
            c.data().read(array);
        }
    }

    public static void hostWrite(Object array, int index, Object call) {
        hookCalls++;
        if (call instanceof Call c && c.data() != null && !ignoreHooks) {
            c.data().write(array);
        }
    }

    public static void hostRowStore(Object array, int index, Object row, Object call) {
        hookCalls++;
        if (call instanceof Call c && c.data() != null && !ignoreHooks) {
            c.data().rowStore(array, index);
        }
    }

    // ------------------------------------------------------------------ implicit data regions

    /** Regions entered and not yet exited, the arrays of the last one entered, and how many were entered. */
    static int openRegions;
    static int regionsEntered;
    static Object[] lastRegionArrays;
    static String lastRegionWhere;
    /** When set, entries give no region (null), as the runtime does where it cannot make one. */
    static boolean declineRegions;
    /**
     * When set (with {@link #interpret}), a region keeps device copies of its arrays, which the kernels the loop
     * calls work on, and the host sees their changes only through the hooks: a missing hook gives stale values.
     */
    static boolean simulateDevice;
    /** When set, the hooks do nothing (to show that the simulated device needs them). */
    static boolean ignoreHooks;
    /** Units (one-dimensional arrays and rows) the hooks copied to the host and to the device, and hook calls. */
    static int unitsToHost;
    static int unitsToDevice;
    static int hookCalls;
    /** The open region the simulated kernels use, or null. */
    private static Region device;

    private static final class Region {
        boolean exited;
        /** Host unit to its device copy; host two-dimensional array to its device copy (rows the device's). */
        final java.util.IdentityHashMap<Object, Object> copies = new java.util.IdentityHashMap<>();
        final java.util.Set<Object> stale = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        final java.util.Set<Object> written = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        /** A nest ran as bytecode on the host arrays: they are the truth until the next kernel or hook. */
        boolean hostRan;

        Region(Object[] arrays) {
            for (Object a : arrays) {
                if (a instanceof Object[] rows) {
                    Object[] d = (Object[]) java.lang.reflect.Array.newInstance(a.getClass().getComponentType(),
                            rows.length);
                    for (int i = 0; i < rows.length; i++) {
                        d[i] = copies.computeIfAbsent(rows[i], TestRuntime::cloneArray);
                    }
                    copies.put(a, d);
                } else if (a != null && a.getClass().isArray()) {
                    copies.computeIfAbsent(a, TestRuntime::cloneArray);
                }
            }
        }

        boolean unit(Object a) {
            return a != null && copies.containsKey(a) && !(a instanceof Object[]);
        }

        void toHost(Object unit) {
            System.arraycopy(copies.get(unit), 0, unit, 0, java.lang.reflect.Array.getLength(unit));
            unitsToHost++;
        }

        void toDevice(Object unit) {
            System.arraycopy(unit, 0, copies.get(unit), 0, java.lang.reflect.Array.getLength(unit));
            unitsToDevice++;
        }

        /** After a nest ran on the host: every unit's host copy was brought there first, and is the truth. */
        void settle() {
            if (hostRan) {
                hostRan = false;
                for (Object u : copies.keySet()) {
                    if (unit(u)) {
                        toDevice(u);
                    }
                }
            }
        }

        void flush() {
            settle();
            for (Object u : written) {
                toDevice(u);
            }
            written.clear();
        }
    }

    private static Object cloneArray(Object a) {
        int n = java.lang.reflect.Array.getLength(a);
        Object c = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n);
        System.arraycopy(a, 0, c, 0, n);
        return c;
    }

    static String lastRegionFields;

    public static Object enterLoopData(Class<?> caller, String where, String callees, String fields,
                                       Object[] arrays) {
        if (declineRegions) {
            return null;
        }
        regionsEntered++;
        openRegions++;
        lastRegionArrays = arrays.clone();
        lastRegionWhere = where;
        lastRegionFields = fields;
        Region r = new Region(simulateDevice ? arrays : new Object[0]);
        if (simulateDevice) {
            device = r;
        }
        return r;
    }

    public static void exitLoopData(Object token) {
        if (token instanceof Region r && !r.exited) {
            r.exited = true;
            openRegions--;
            if (r == device) {
                device = null;
            }
            r.flush();
            for (Object u : r.copies.keySet()) {
                if (r.unit(u)) {
                    r.toHost(u);
                }
            }
        }
    }

    public static void loopRead(Object array, Object token) {
        hookCalls++;
        if (token instanceof Region r && !ignoreHooks) {
            r.settle();
            if (r.stale.remove(array)) {
                r.toHost(array);
            }
        }
    }

    public static void loopWrite(Object array, int index, Object token) {
        hookCalls++;
        if (token instanceof Region r && !ignoreHooks) {
            loopRead(array, token);
            if (r.unit(array)) {
                r.written.add(array);
            }
        }
    }

    public static void loopCall(Object token) {
        hookCalls++;
        if (token instanceof Region r && !ignoreHooks) {
            r.flush();
            for (Object u : r.copies.keySet()) {
                if (r.unit(u)) {
                    r.stale.add(u);
                }
            }
        }
    }

    /** The arrays a simulated kernel works on: the open region's device copies in place of its host arrays. */
    private static Object onDevice(Object value) {
        Region r = device;
        if (r == null || value == null) {
            return value;
        }
        Object d = r.copies.get(value);
        return d == null ? value : d;
    }
}
