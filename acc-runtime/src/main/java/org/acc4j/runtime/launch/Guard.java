package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.data.PresentTable;

/**
 * The one way into the device: every runtime operation that touches it (a launch, a data clause, an {@code Acc}
 * routine, loading a module, shutting down) runs through {@link #run} (or {@link #call}, for a call), which
 * <ul>
 *   <li>holds the <em>device lock</em>, so one thread at a time uses the device, its error record and its reduction
 *       scratch, and nothing can run while the context is being rebuilt;</li>
 *   <li>makes the context current on the calling thread ({@code cuCtxSetCurrent}), whatever thread calls in;</li>
 *   <li>turns a <em>sticky</em> CUDA error ({@link DeviceFaultException#sticky}) into a {@link DeviceFaultException}
 *       naming what ran and the CUDA error, after dealing with the device:
 *       <ol>
 *         <li>present arrays a kernel had changed and not yet copied back are recorded as lost
 *             ({@link PresentTable#markLost}): their host copies are stale, and the runtime refuses them;</li>
 *         <li>the context is rebuilt: the primary context is reset and retained again, the kernel cache forgets its
 *             modules (methods load them again on their next call), the launcher allocates its error record anew,
 *             and the present table restores every present array from its host copy; the next call works;</li>
 *         <li>where the driver refuses (current drivers keep a process's CUDA state poisoned after most sticky
 *             faults), the device is <em>lost</em>: every buffer and module is abandoned, nothing is present, and
 *             from then on {@link #run} throws {@link DeviceLostException} at once, which the runtime turns into
 *             plain-Java runs ({@link #lost()}).</li>
 *       </ol></li>
 *   <li>first waits, except for a call ({@link #call}), for the kernels earlier calls queued without waiting (see
 *       {@link Launcher}): a fault they met is handled as above, its message naming them.</li>
 * </ul>
 * Other exceptions pass through unchanged. Thread-safe.
 */
public final class Guard {
    /** Work on the device; may throw a checked exception of its own. */
    @FunctionalInterface
    public interface Work<T, X extends Exception> {
        T run() throws X;
    }

    /** What the guard does to the device: the runtime's context, kernel cache and launcher (a fake in tests). */
    public interface Target {
        /** Makes the context current on the calling thread. */
        void makeCurrent();

        /** Resets the context after a sticky fault and forgets everything of the old one; throws when refused. */
        void rebuild();

        /** Forgets everything on the device without touching it: it is lost. */
        void abandon();

        /**
         * Waits for kernels launched without a wait ({@link org.acc4j.runtime.cuda.Pending}) before {@code what}
         * uses the device; a fault they met is thrown here, as the driver's failure.
         */
        default void settle(String what) {
        }
    }

    private final Target target;
    private final PresentTable table;
    private int rebuilds;
    /** The fault that lost the device, or null while it works. */
    private volatile DeviceFaultException lost;

    public Guard(Context context, PresentTable table, KernelCache cache, Launcher launcher) {
        this(new Target() {
            @Override
            public void makeCurrent() {
                context.makeCurrent();
            }

            @Override
            public void rebuild() {
                context.reset();
                cache.forget();
                launcher.deviceLost();
            }

            @Override
            public void abandon() {
                cache.forget();
                launcher.abandon();
            }

            @Override
            public void settle(String what) {
                launcher.settle(what);
            }
        }, table);
    }

    public Guard(Target target, PresentTable table) {
        this.target = target;
        this.table = table;
    }

    /**
     * Runs {@code work} under the device lock with the context current.
     *
     * @param what what the work is, for the fault's message, e.g. {@code Saxpy.run} or {@code Acc.copyin of float[1024]}
     * @throws DeviceFaultException when the work met a sticky error; the device was rebuilt or lost before it is thrown
     * @throws DeviceLostException when the device was lost by an earlier fault: nothing ran
     */
    public <T, X extends Exception> T run(String what, Work<T, X> work) throws X {
        return run(what, work, true);
    }

    /**
     * As {@link #run}, for a {@code @Kernels} call or a launch site's call or scope: the kernels queued before it are
     * not waited for first. The launcher waits for them where the call needs it (a launch it does not defer), and the
     * call's copies and frees wait for them ({@link org.acc4j.runtime.data.CudaMemory#settleWith}).
     */
    public <T, X extends Exception> T call(String what, Work<T, X> work) throws X {
        return run(what, work, false);
    }

    private <T, X extends Exception> T run(String what, Work<T, X> work, boolean settle) throws X {
        synchronized (this) {
            DeviceFaultException fault = lost;
            if (fault != null) {
                throw DeviceLostException.device(what, fault);
            }
            try {
                target.makeCurrent();
                if (settle) {
                    // every operation but a call sees the device's data as the kernels before it left it
                    target.settle(what);
                }
                return work.run();
            } catch (DriverException e) {
                if (!DeviceFaultException.sticky(e.result())) {
                    throw e;
                }
                throw rebuild(what, e);
            }
        }
    }

    /** How many times the device was rebuilt after a fault. */
    public synchronized int rebuilds() {
        return rebuilds;
    }

    /** The fault after which the device was lost, or null while it works: then every region runs as plain Java. */
    public DeviceFaultException lost() {
        return lost;
    }

    /**
     * The description of {@code array} if a fault lost the device-side changes a kernel had made to it, else null
     * (see {@link PresentTable#lostArray}).
     */
    public synchronized String lostArray(Object array) {
        return table.lostArray(array);
    }

    /** Forgets that {@code array}'s device-side changes were lost ({@code Acc.delete}). */
    public synchronized void forgetLost(Object array) {
        table.forgetLost(array);
    }

    /** Rebuilds the device after {@code fault}, or loses it; called under the device lock. */
    private DeviceFaultException rebuild(String what, DriverException fault) {
        List<String> gone = table.markLost();
        try {
            target.rebuild();
            int restored = table.restore();
            rebuilds++;
            return new DeviceFaultException(what, fault, restored, null, gone);
        } catch (RuntimeException e) {
            try {
                table.lose();
                target.abandon();
            } catch (RuntimeException abandoning) {
                e.addSuppressed(abandoning);
            }
            DeviceFaultException d = new DeviceFaultException(what, fault, -1, e, gone);
            lost = d;
            return d;
        }
    }
}
