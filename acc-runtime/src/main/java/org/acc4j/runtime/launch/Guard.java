package org.acc4j.runtime.launch;

import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.CudaException;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.data.PresentTable;

/**
 * The one way into the device: every runtime operation that touches it (a launch, a data clause, an {@code Acc}
 * routine, loading a module, shutting down) runs through {@link #run}, which
 * <ul>
 *   <li>holds the <em>device lock</em>, the launcher's monitor, so one thread at a time uses the device, its
 *       error record and its reduction scratch, and nothing can run while the context is being rebuilt;</li>
 *   <li>makes the context current on the calling thread ({@code cuCtxSetCurrent}), whatever thread calls in;</li>
 *   <li>turns a <em>sticky</em> CUDA error ({@link DeviceFaultException#sticky}) into a rebuilt device: the primary
 *       context is reset and retained again, the kernel cache forgets its modules (methods load them again on their
 *       next call), the launcher allocates its error record anew, and the present table restores every present
 *       array from its host copy. The caller gets a {@link DeviceFaultException} naming what ran and the CUDA
 *       error; the next call works.</li>
 * </ul>
 * Other exceptions pass through unchanged. Thread-safe.
 */
public final class Guard {
    /** Work on the device; may throw a checked exception of its own. */
    @FunctionalInterface
    public interface Work<T, X extends Exception> {
        T run() throws X;
    }

    private final Context context;
    private final PresentTable table;
    private final KernelCache cache;
    private final Launcher launcher;
    private int rebuilds;

    public Guard(Context context, PresentTable table, KernelCache cache, Launcher launcher) {
        this.context = context;
        this.table = table;
        this.cache = cache;
        this.launcher = launcher;
    }

    /**
     * Runs {@code work} under the device lock with the context current.
     *
     * @param what what the work is, for the fault's message, e.g. {@code Saxpy.run} or {@code Acc.copyin of float[1024]}
     * @throws DeviceFaultException when the work met a sticky error; the device was rebuilt before it is thrown
     */
    public <T, X extends Exception> T run(String what, Work<T, X> work) throws X {
        synchronized (launcher) {
            try {
                context.makeCurrent();
                return work.run();
            } catch (CudaException e) {
                if (!DeviceFaultException.sticky(e.result())) {
                    throw e;
                }
                throw rebuild(what, e);
            }
        }
    }

    /** How many times the device was rebuilt after a fault. */
    public int rebuilds() {
        synchronized (launcher) {
            return rebuilds;
        }
    }

    /** Rebuilds the device after {@code fault}; called under the device lock. */
    private DeviceFaultException rebuild(String what, CudaException fault) {
        try {
            context.reset();
            cache.forget();
            launcher.deviceLost();
            int restored = table.restore();
            rebuilds++;
            return new DeviceFaultException(what, fault, restored, null);
        } catch (RuntimeException e) {
            return new DeviceFaultException(what, fault, -1, e);
        }
    }
}
