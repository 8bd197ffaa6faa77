package org.acc4j.samples.conformance;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.site.MethodPlan;

/**
 * The entry points that methods rewritten into launch sites call, running each site's kernels through the
 * {@link KernelInterpreter} on the host's arrays (every block and thread of the kernel's mapping, with its race
 * check): the device path without a device. A site the interpreter declines runs the nest's bytecode, as the runtime
 * runs it on the host. Implicit data regions of host loops are declined (the arrays are the host's).
 */
public final class InterpretingRuntime {
    public static final String NAME = InterpretingRuntime.class.getName().replace('.', '/');
    static final List<MethodPlan> PLANS = new ArrayList<>();
    /** Sites the interpreter ran, and sites it declined with their reasons. */
    static final List<String> RAN = new ArrayList<>();
    static final List<String> DECLINED = new ArrayList<>();

    private InterpretingRuntime() {
    }

    static synchronized int register(MethodPlan p) {
        PLANS.add(p);
        return PLANS.size() - 1;
    }

    private record Call(MethodPlan plan, Class<?> owner, Object self) {
    }

    public static Object enterCall(Class<?> owner, Object self, int plan, Object[] args, Object[] handles) {
        MethodPlan p;
        synchronized (InterpretingRuntime.class) {
            p = PLANS.get(plan);
        }
        return new Call(p, owner, self);
    }

    public static Object[] site(Object call, int index, Object[] values) {
        Call c = (Call) call;
        MethodPlan.Site s = c.plan().sites().get(index);
        String where = c.plan().displayName() + " line " + s.line();
        // as the runtime: a null array, or one array under two names, runs the nest on the host
        java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Object v : values) {
            boolean nullRow = v instanceof Object[] rows && java.util.Arrays.asList(rows).contains(null);
            if (v == null || nullRow || (v.getClass().isArray() && !seen.add(v))) {
                synchronized (InterpretingRuntime.class) {
                    DECLINED.add(where + ": a null array or row, or one array under two names");
                }
                return null;
            }
        }
        try {
            Object r = KernelInterpreter.run(s.compiled().method(), source -> {
                if (source instanceof ArrayRef.Parameter p) {
                    return values[p.index()];
                }
                ArrayRef.Field f = (ArrayRef.Field) source;
                return field(c.owner(), f.name(), f.isStatic() ? null : c.self());
            }, values, 16);
            synchronized (InterpretingRuntime.class) {
                RAN.add(where);
            }
            return r == null ? new Object[0] : (Object[]) r;
        } catch (KernelInterpreter.HostInstead h) {
            synchronized (InterpretingRuntime.class) {
                DECLINED.add(where + ": " + h.getMessage());
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
    }

    public static Throwable exitCallThrown(Object call, Throwable thrown) {
        return thrown;
    }

    public static Object enterLoopData(Class<?> caller, String where, String callees, String fields,
                                       Object[] arrays) {
        return null;
    }

    public static void exitLoopData(Object token) {
    }

    public static void loopRead(Object array, Object token) {
    }

    public static void loopWrite(Object array, int index, Object token) {
    }

    public static void loopCall(Object token) {
    }
}
