package org.acc4j.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.OutOfDeviceMemoryException;
import org.acc4j.runtime.data.PresentTable;

/**
 * The runtime's side of implicit data regions: host loops that call {@code @Kernels} methods, wrapped by the agent
 * where nothing else in the loop can see the arrays the calls receive (the compiler's {@code LoopRegions} says when).
 * Entering copies those arrays to the device ({@code copy}, counted as a {@code @Data} region counts) so that the
 * calls inside find them present; exiting, by any way out of the loop, copies them back. In between, the host's
 * element reads and writes of them are kept coherent through {@link LoopRegion}.
 *
 * <p>A region is made only on the GPU, and only when every {@code @Kernels} method the loop calls was rewritten for
 * the device (a method left as plain Java would read stale host arrays). Anything else (the host or multicore
 * target, where data is shared; a method not rewritten; an array that does not fit) leaves the loop as written: its
 * calls move their data themselves. {@code ACC4J_LOOP_REGIONS=off} (or {@code -Dacc4j.loopRegions=off}) turns implicit
 * regions off; the agent then leaves loops unchanged.
 */
final class LoopData {
    private final AccRuntime runtime;
    /** The {@code @Kernels} methods whose rewritten code the JVM received, as {@code owner.namedescriptor}. */
    private final Set<String> installed = ConcurrentHashMap.newKeySet();
    /** How many regions were made in this JVM. */
    private final java.util.concurrent.atomic.AtomicLong made = new java.util.concurrent.atomic.AtomicLong();
    /** Per loop: "" when its regions may be made, else why not (found once, at its first entry). */
    private final Map<String, String> verdicts = new ConcurrentHashMap<>();

    LoopData(AccRuntime runtime) {
        this.runtime = runtime;
    }

    /** Whether implicit regions are on: {@code acc4j.loopRegions}, else {@code ACC4J_LOOP_REGIONS}; on by default. */
    static boolean enabled() {
        String v = System.getProperty("acc4j.loopRegions");
        if (v == null) {
            v = System.getenv("ACC4J_LOOP_REGIONS");
        }
        return v == null || Options.switchValue(v) != Boolean.FALSE;
    }

    /** Whether the compile report was asked for, read before the runtime has started. */
    static boolean reportAsked() {
        String v = System.getProperty("acc4j.report");
        if (v == null) {
            v = System.getenv("ACC4J_REPORT");
        }
        return v != null && Options.switchValue(v) == Boolean.TRUE;
    }

    long made() {
        return made.get();
    }

    void installed(List<String> methods) {
        installed.addAll(methods);
    }

    /**
     * Enters the region of a loop of {@code caller} ({@code where} names it); the token, or null when no region is
     * made. {@code callees}: the {@code @Kernels} methods the loop calls, separated by ';'. {@code values}: the
     * region's arrays, then objects whose array fields enter it; {@code fields}: {@code "T1:a,b;T2:c|S1:d"}, the
     * classes declaring those objects' fields with the fields, then the class whose static array fields enter it.
     */
    Object enter(Class<?> caller, String where, String callees, String fields, Object[] values) {
        Gpu s = runtime.gpu();
        if (s == null) {
            return null;
        }
        String why = verdicts.computeIfAbsent(where, w -> verdict(caller, w, callees));
        if (!why.isEmpty()) {
            return null;
        }
        List<Object> arrays = arrays(caller, fields, values);
        return s.run("the implicit data region of " + where, () -> {
            // the region sees everything queued before it
            s.launcher.queues().finishAll();
            return enterAll(s, where, arrays.toArray());
        }, () -> null);
    }

    /** The region's arrays: those given, and those the objects' and classes' array fields hold now. */
    private static List<Object> arrays(Class<?> caller, String fields, Object[] values) {
        int bar = fields.indexOf('|');
        String[] types = fields.substring(0, bar).isEmpty() ? new String[0] : fields.substring(0, bar).split(";");
        String[] statics = fields.substring(bar + 1).isEmpty() ? new String[0] : fields.substring(bar + 1).split(";");
        int arrays = values.length - types.length;
        List<Object> out = new ArrayList<>(java.util.Arrays.asList(values).subList(0, arrays));
        ClassLoader loader = caller.getClassLoader();
        for (int k = 0; k < types.length; k++) {
            Object o = values[arrays + k];
            int colon = types[k].indexOf(':');
            Class<?> declared = load(types[k].substring(0, colon), loader);
            if (o != null && declared != null && declared.isInstance(o)) {
                fields(declared, o, types[k].substring(colon + 1).split(","), out);
            }
        }
        for (String st : statics) {
            int colon = st.indexOf(':');
            // only the caller's own class: it is initialised, since its code is running
            if (st.substring(0, colon).replace('/', '.').equals(caller.getName())) {
                fields(caller, null, st.substring(colon + 1).split(","), out);
            }
        }
        return out;
    }

    private static Class<?> load(String internalName, ClassLoader loader) {
        try {
            return Class.forName(internalName.replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** The values of the fields {@code names} of {@code c} or its super classes, static or of {@code o}. */
    private static void fields(Class<?> c, Object o, String[] names, List<Object> out) {
        for (String name : names) {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                try {
                    java.lang.reflect.Field f = k.getDeclaredField(name);
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers()) == (o == null)
                            && HostArrays.isDataType(f.getType())) {
                        f.setAccessible(true);
                        Object v = f.get(o);
                        if (v != null) {
                            out.add(v);
                        }
                    }
                    break;
                } catch (NoSuchFieldException e) {
                    // further up
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // a field acc4j cannot read stays out of the region: the calls move its array, as written
                    break;
                }
            }
        }
    }

    private Object enterAll(Gpu s, String where, Object[] arrays) {
        PresentTable table = s.table;
        List<Object> entered = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object a : arrays) {
            if (a == null || !HostArrays.isDataType(a.getClass()) || HostArrays.nullRow(a) >= 0 || !seen.add(a)) {
                // a null array or row: the calls say so as they would have
                continue;
            }
            try {
                table.enter(a, Clause.COPY);
                entered.add(a);
            } catch (OutOfDeviceMemoryException | IllegalArgumentException | IllegalStateException e) {
                // this array stays out of the region: the calls move it, as written
                if (runtime.reporting()) {
                    AccRuntime.printReport(where + ": " + HostArrays.describe(a) + " stays out of the implicit data"
                            + " region (" + e.getMessage() + ")");
                }
            }
        }
        if (entered.isEmpty()) {
            return null;
        }
        made.incrementAndGet();
        return new LoopRegion(where, entered, mover(s, where));
    }

    /** The present table's updates of a unit, each seeing everything queued before it. */
    private static LoopRegion.Mover mover(Gpu s, String where) {
        return new LoopRegion.Mover() {
            @Override
            public void toHost(Object unit) {
                // a unit whose device-side changes a fault lost is refused by name: its host copy is stale
                s.refuseLost("the host's read in the implicit data region of " + where, unit);
                s.run("a copy to the host in the implicit data region of " + where, () -> {
                    s.launcher.queues().finishAll();
                    if (s.table.isPresent(unit)) {
                        s.table.updateHost(unit);
                    }
                    return null;
                }, () -> null);
            }

            @Override
            public void toDevice(Object unit, int from, int to) {
                s.run("a copy to the device in the implicit data region of " + where, () -> {
                    s.launcher.queues().finishAll();
                    if (s.table.isPresent(unit)) {
                        s.table.updateDeviceRange(unit, from, to);
                    }
                    return null;
                }, () -> null);
            }
        };
    }

    /** Before the host reads an element of {@code array} in a region's loop; nothing without a region. */
    static void read(Object array, Object token) {
        if (token instanceof LoopRegion r) {
            r.read(array);
        }
    }

    /** Before the host writes element {@code index} of {@code array} in a region's loop; nothing without a region. */
    static void write(Object array, int index, Object token) {
        if (token instanceof LoopRegion r) {
            r.write(array, index);
        }
    }

    /** Before a {@code @Kernels} call in a region's loop; nothing without a region. */
    static void call(Object token) {
        if (token instanceof LoopRegion r && !r.done.get()) {
            r.call();
        }
    }

    /** Exits a region entered by {@link #enter}; a second exit of the same token does nothing. */
    void exit(Object token) {
        if (!(token instanceof LoopRegion t) || !t.done.compareAndSet(false, true)) {
            return;
        }
        Gpu s = runtime.gpuIfStarted();
        if (s == null) {
            return;
        }
        // a region entered before the device was lost has nothing left on it to exit
        s.run("the exit of the implicit data region of " + t.where, () -> {
            s.launcher.queues().finishAll();
            RuntimeException first = null;
            try {
                // what the host wrote since the last call first, so that the copy back keeps it
                t.flush();
            } catch (RuntimeException e) {
                first = e;
            }
            for (int i = t.arrays.size() - 1; i >= 0; i--) {
                try {
                    s.table.exit(t.arrays.get(i), Clause.COPY);
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
            return null;
        }, () -> null);
    }

    /** "" when every method the loop calls was rewritten for the device (loading their classes if need be). */
    private String verdict(Class<?> caller, String where, String callees) {
        List<String> missing = new ArrayList<>();
        for (String m : callees.split(";")) {
            if (m.isEmpty() || installed.contains(m)) {
                continue;
            }
            int paren = m.indexOf('(');
            String owner = m.substring(0, m.lastIndexOf('.', paren));
            try {
                // loading the class (without initialising it) rewrites it, if the agent can
                Class.forName(owner.replace('/', '.'), false, caller.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // it stays missing
            }
            if (!installed.contains(m)) {
                missing.add(owner.substring(owner.lastIndexOf('/') + 1) + "." + m.substring(m.lastIndexOf('.', paren)
                        + 1, paren));
            }
        }
        String why = missing.isEmpty() ? "" : String.join(", ", missing) + " did not get device code";
        if (runtime.reporting()) {
            AccRuntime.printReport(where + (why.isEmpty()
                    ? ": an implicit data region: copied to the device before the loop, back after it"
                    : ": no implicit data region, because " + why + "; each call moves its data"));
        }
        return why;
    }
}
