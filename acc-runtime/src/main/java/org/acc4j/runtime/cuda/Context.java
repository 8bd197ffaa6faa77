package org.acc4j.runtime.cuda;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * Owns one reference to a device's primary context.
 *
 * <p>The primary context is the one the CUDA runtime API also uses, so acc4j and other CUDA
 * code in the same process share allocations and modules. A context is current per thread:
 * call {@link #makeCurrent()} on every entry into the runtime from a thread that may not have
 * it current yet (it is cheap). Every {@link DeviceBuffer} and {@link Module} needs the context
 * current on the thread that creates, uses or closes it.
 *
 * <p>Invariant: until {@link #close()} this object holds exactly one retain of the primary
 * context; {@code close()} releases it once, however often it is called. Thread-safe.
 */
public final class Context extends Handle {

    /** Free and total device memory in bytes, as {@code cuMemGetInfo} reports them. */
    public record MemInfo(long free, long total) {
    }

    private final Device device;
    private final CUdevice handle;
    /** The retained primary context; replaced by {@link #reset}. */
    private volatile CUcontext context;

    private Context(Device device, CUdevice handle, CUcontext context) {
        this.device = device;
        this.handle = handle;
        this.context = context;
    }

    /**
     * Retains the primary context of {@code device} and makes it current on this thread.
     *
     * @throws DriverException when the driver refuses
     */
    public static Context open(Device device) {
        Driver.init();
        CUdevice handle = device.handle();
        CUcontext context = new CUcontext();
        Driver.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, handle), "cuDevicePrimaryCtxRetain",
                "retaining the primary context of device " + device.ordinal() + " (" + device.name() + ")");
        Context opened = new Context(device, handle, context);
        try {
            opened.makeCurrent();
        } catch (RuntimeException e) {
            // do not leak the retain when the context cannot be made current
            opened.close();
            throw e;
        }
        return opened;
    }

    /** The device this context belongs to. */
    public Device device() {
        return device;
    }

    /** Makes this context current on the calling thread ({@code cuCtxSetCurrent}). */
    public void makeCurrent() {
        ensureOpen();
        int result = JCudaDriver.cuCtxSetCurrent(context);
        if (result != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(result, "cuCtxSetCurrent", "making the context of device " + device.ordinal() + " current");
        }
    }

    /**
     * Destroys the primary context with everything in it ({@code cuDevicePrimaryCtxReset}) and retains a fresh one,
     * made current on this thread: the way out of a sticky fault, after which every call on the old context fails.
     * Every {@link DeviceBuffer} and {@link Module} of the old context is gone (abandon them, never close them), and
     * other threads must call {@link #makeCurrent()} again. The caller makes sure no other thread uses the device
     * meanwhile. Still exactly one retain is held afterwards; if the fresh retain fails, none is, and this context
     * counts as closed.
     *
     * @throws DriverException when the driver refuses the reset or the retain
     */
    public synchronized void reset() {
        ensureOpen();
        Driver.check(JCudaDriver.cuDevicePrimaryCtxReset(handle), "cuDevicePrimaryCtxReset",
                "resetting the primary context of device " + device.ordinal() + " after a fault");
        // resetting does not release: give back the old retain, then take one on the fresh context
        int released = JCudaDriver.cuDevicePrimaryCtxRelease(handle);
        CUcontext fresh = new CUcontext();
        int retained = JCudaDriver.cuDevicePrimaryCtxRetain(fresh, handle);
        if (retained != jcuda.driver.CUresult.CUDA_SUCCESS) {
            if (released == jcuda.driver.CUresult.CUDA_SUCCESS) {
                abandon();
            }
            Driver.check(retained, "cuDevicePrimaryCtxRetain", "retaining the primary context of device "
                    + device.ordinal() + " again after its reset");
        }
        if (released != jcuda.driver.CUresult.CUDA_SUCCESS) {
            // the old retain is still counted: keep holding exactly one
            JCudaDriver.cuDevicePrimaryCtxRelease(handle);
        }
        context = fresh;
        makeCurrent();
    }

    /**
     * Free and total memory of the device whose context is current on this thread ({@code cuMemGetInfo}), or null
     * when it cannot be read (no current context, a failed driver): for messages about running out of memory.
     */
    public static MemInfo currentMemInfo() {
        long[] free = new long[1];
        long[] total = new long[1];
        try {
            if (JCudaDriver.cuMemGetInfo(free, total) != jcuda.driver.CUresult.CUDA_SUCCESS) {
                return null;
            }
        } catch (LinkageError e) {
            return null;
        }
        return new MemInfo(free[0], total[0]);
    }

    /**
     * Waits for all work on this context and checks the result; asynchronous kernel faults
     * surface here.
     *
     * @param waitingFor what was waited for, e.g. {@code kernel sum_loop_12}; it goes into the
     *                   exception message
     */
    public void synchronize(String waitingFor) {
        ensureOpen();
        int result = JCudaDriver.cuCtxSynchronize();
        if (result != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(result, "cuCtxSynchronize", "waiting for " + waitingFor);
        }
    }

    /** Free and total memory of the device, for the current context. */
    public MemInfo memInfo() {
        ensureOpen();
        long[] free = new long[1];
        long[] total = new long[1];
        Driver.check(JCudaDriver.cuMemGetInfo(free, total), "cuMemGetInfo",
                "reading memory use of device " + device.ordinal());
        return new MemInfo(free[0], total[0]);
    }

    /** Releases the primary context (once). */
    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuDevicePrimaryCtxRelease(handle), "cuDevicePrimaryCtxRelease",
                "releasing the primary context of device " + device.ordinal());
    }

    @Override
    protected String closedMessage() {
        return "the CUDA context of device " + device.ordinal() + " is closed";
    }

    @Override
    public String toString() {
        return "Context[device " + device.ordinal() + " " + device.name() + (isClosed() ? ", closed" : "") + "]";
    }
}
