package org.acc4j.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.SharedPresence;
import org.acc4j.runtime.launch.Offloader;

/**
 * What the agent's advice asks of the runtime around a {@code @Kernels} or {@code @Data} method: offload the call,
 * keep a host run correct inside data regions, enter and exit data regions. {@link AccRuntime}'s static entry points
 * delegate here; the device-loss policy is {@link Gpu#run}'s.
 */
final class Advice {
    private final AccRuntime runtime;
    /** Whether the loss of the device was said (once per run of the runtime). */
    private volatile boolean lossReported;

    Advice(AccRuntime runtime) {
        this.runtime = runtime;
    }

    /** A new run of the runtime says a loss again. */
    void reset() {
        lossReported = false;
    }

    /**
     * Runs a {@code @Kernels} call on the device: a one-element array holding the method's value (null for a void
     * method), or null when the original body must run (on the host).
     */
    Object[] offloadValue(Class<?> owner, String name, String desc, Object self, Object[] args) {
        Gpu s = runtime.gpu();
        if (s == null) {
            return null;
        }
        return s.orHost(() -> {
            Offloader.Outcome o = s.offloader.run(owner, name, desc, self, args);
            if (o.onDevice()) {
                return new Object[] {o.value()};
            }
            if (o.firstTime()) {
                Log.warning(o.reason());
            }
            sync(s, owner, self, args, true);
            return null;
        }, () -> {
            hostAfterLoss(s, owner, name, self, args);
            return null;
        });
    }

    /**
     * Before a {@code @Kernels} call runs as plain Java because the device was lost: refuses it if it may use an
     * array whose device-side changes the fault lost (its host copy is stale); says once that the device is lost.
     */
    private void hostAfterLoss(Gpu s, Class<?> owner, String name, Object self, Object[] args) {
        for (Object a : arraysOf(owner, self, args)) {
            s.refuseLost(owner.getSimpleName() + "." + name, a);
        }
        if (!lossReported) {
            lossReported = true;
            DeviceFaultException fault = s.lost();
            Log.warning("the device was lost after a fault in " + fault.what() + ": @Kernels methods run as plain"
                    + " Java from now on (restart the JVM to use the GPU again)");
        }
    }

    /** After a {@code @Kernels} call ran on the host: device copies of its arrays get the host's values. */
    void afterHost(Class<?> owner, Object self, Object[] args) {
        Gpu s = runtime.gpuIfStarted();
        if (s != null) {
            s.orHost(() -> {
                sync(s, owner, self, args, false);
                return null;
            }, () -> null);
        }
    }

    /** Enters the data region of a {@code @Data} method; null when there is no device. */
    Object enterData(Class<?> owner, String name, String desc, Object self, Object[] args) {
        Gpu s = runtime.gpu();
        if (s == null) {
            return enterShared(owner, name, desc, self, args);
        }
        String what = "the data region of " + owner.getSimpleName() + "." + name;
        return s.run(what, () -> {
            s.launcher.queues().finishAll();
            return s.offloader.enterRegion(owner, name, desc, self, args, s.table);
        }, () -> {
            // the device is lost: a host region, unless it names an array whose device-side changes were lost
            for (Object a : s.offloader.regionArrays(owner, name, desc, self, args)) {
                s.refuseLost(what, a);
            }
            return null;
        });
    }

    /** A data region entered on the multicore target: the arrays whose structured counts it raised. */
    private record SharedRegion(SharedPresence counts, List<Object> presence) {
    }

    /** The multicore target's data region: counts only; null where the target is plain Java. */
    private Object enterShared(Class<?> owner, String name, String desc, Object self, Object[] args) {
        AccRuntime.Cores c = runtime.cores();
        if (c == null) {
            return null;
        }
        List<Object> arrays = c.clauses().regionArrays(owner, name, desc, self, args);
        arrays.forEach(a -> c.shared().enter(a, true));
        return new SharedRegion(c.shared(), arrays);
    }

    /** Exits a data region entered by {@link #enterData}. */
    void exitData(Object token) {
        if (token instanceof SharedRegion r) {
            r.presence().forEach(a -> r.counts().exit(a, true, false));
            return;
        }
        Gpu s = runtime.gpuIfStarted();
        if (s != null && token != null) {
            // a region entered before the device was lost has nothing left on it to exit
            s.run("the exit of a data region", () -> {
                s.launcher.queues().finishAll();
                s.offloader.exitRegion(token, s.table);
                return null;
            }, () -> null);
        }
    }

    /**
     * Keeps a host run correct inside data regions: before it, present arrays it may use (rank-2 arrays row by
     * row) are copied to the host; after it, back to the device.
     */
    private static void sync(Gpu s, Class<?> owner, Object self, Object[] args, boolean toHost) {
        List<Object> arrays = arraysOf(owner, self, args);
        s.guard.run("the copies around a host run of " + owner.getSimpleName(), () -> {
            // the host run sees everything queued before it
            s.launcher.queues().finishAll();
            for (Object a : arrays) {
                // a row the host run set to null has no device copy to update; launches of the array run on the host
                if (s.table.isPresent(a) && (toHost || HostArrays.nullRow(a) < 0)) {
                    if (toHost) {
                        s.table.updateHost(a);
                    } else {
                        s.table.updateDevice(a);
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
}
