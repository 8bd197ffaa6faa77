package org.acc4j.runtime.cuda;

import jcuda.driver.CUresult;

/**
 * The device faulted with a <em>sticky</em> error (an illegal address, a trap, a hardware stack error, ...), after
 * which the CUDA context refuses every call. The runtime has rebuilt its context by the time this is thrown: the
 * next call runs on a fresh context, and the arrays present on the device were restored from their host copies.
 *
 * <p>The message names what was running, the CUDA error (the {@link CudaException} is the cause) and what the
 * rebuild did; in particular that device-side changes to present data not yet copied back to the host are lost.
 */
public final class DeviceFaultException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int result;
    private final boolean rebuilt;

    /**
     * @param what     what was running, e.g. {@code Saxpy.run (kernel run_loop_14)}
     * @param fault    the driver's failure
     * @param restored present arrays restored from the host, or -1 when the rebuild itself failed
     * @param rebuild  why the rebuild failed, null when it succeeded
     */
    public DeviceFaultException(String what, CudaException fault, int restored, RuntimeException rebuild) {
        super(message(what, fault, restored, rebuild), fault);
        this.result = fault.result();
        this.rebuilt = rebuild == null;
        if (rebuild != null) {
            addSuppressed(rebuild);
        }
    }

    /** The sticky {@code CUresult} code. */
    public int result() {
        return result;
    }

    /** Whether the context was rebuilt, so the next call can run. */
    public boolean rebuilt() {
        return rebuilt;
    }

    /**
     * Whether {@code result} is a sticky error: one that corrupts the context, so every later call on it fails with
     * the same code until the context is destroyed.
     */
    public static boolean sticky(int result) {
        return switch (result) {
            case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, CUresult.CUDA_ERROR_LAUNCH_TIMEOUT, CUresult.CUDA_ERROR_ASSERT,
                 CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR, CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
                 CUresult.CUDA_ERROR_MISALIGNED_ADDRESS, CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE,
                 CUresult.CUDA_ERROR_INVALID_PC, CUresult.CUDA_ERROR_LAUNCH_FAILED,
                 CUresult.CUDA_ERROR_ECC_UNCORRECTABLE, CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED -> true;
            default -> false;
        };
    }

    private static String message(String what, CudaException fault, int restored, RuntimeException rebuild) {
        String head = "acc4j: the device faulted in " + what + ": " + fault.getMessage().lines().findFirst().orElse("");
        if (rebuild != null) {
            return head + ". Rebuilding the CUDA context failed too (" + rebuild.getMessage()
                    + "): device data is lost and the next call may fail the same way";
        }
        return head + ". The CUDA context was rebuilt and the next call runs normally; " + restored
                + (restored == 1 ? " array present on the device was" : " arrays present on the device were")
                + " restored from the host's copy, so changes made on the device and not yet copied back to the host"
                + " are lost, and this call's results did not reach the host";
    }
}
