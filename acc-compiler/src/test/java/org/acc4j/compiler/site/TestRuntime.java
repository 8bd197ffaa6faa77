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
 * device would (with its thread mapping, its reduction order and its race check).
 */
public final class TestRuntime {
    static final List<MethodPlan> PLANS = new ArrayList<>();
    static boolean interpret;
    static int launches;
    static int calls;
    static int exits;

    private TestRuntime() {
    }

    static synchronized int register(MethodPlan p) {
        PLANS.add(p);
        return PLANS.size() - 1;
    }

    private record Call(MethodPlan plan, Class<?> owner, Object self) {
    }

    public static Object enterCall(Class<?> owner, Object self, int plan, Object[] args, Object[] handles) {
        calls++;
        return new Call(PLANS.get(plan), owner, self);
    }

    public static Object[] site(Object call, int index, Object[] values) {
        if (!interpret) {
            return null;
        }
        Call c = (Call) call;
        MethodPlan.Site s = c.plan().sites().get(index);
        try {
            Object r = KernelInterpreter.run(s.compiled().method(), source -> {
                if (source instanceof ArrayRef.Parameter p) {
                    return values[p.index()];
                }
                ArrayRef.Field f = (ArrayRef.Field) source;
                return field(c.owner(), f.name(), f.isStatic() ? null : c.self());
            }, values, 16);
            launches++;
            return r == null ? new Object[0] : (Object[]) r;
        } catch (KernelInterpreter.HostInstead h) {
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
    }

    public static Throwable exitCallThrown(Object call, Throwable thrown) {
        exits++;
        return thrown;
    }

    // ------------------------------------------------------------------ implicit data regions

    /** Regions entered and not yet exited, the arrays of the last one entered, and how many were entered. */
    static int openRegions;
    static int regionsEntered;
    static Object[] lastRegionArrays;
    static String lastRegionWhere;
    /** When set, entries give no region (null), as the runtime does where it cannot make one. */
    static boolean declineRegions;

    private static final class Region {
        boolean exited;
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
        return new Region();
    }

    public static void exitLoopData(Object token) {
        if (token instanceof Region r && !r.exited) {
            r.exited = true;
            openRegions--;
        }
    }
}
