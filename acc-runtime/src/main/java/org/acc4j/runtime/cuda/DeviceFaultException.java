package org.acc4j.runtime.cuda;

import jcuda.driver.CUresult;

/**
 * The device faulted with a <em>sticky</em> error (an illegal address, a trap, a hardware stack error, ...), after
 * which the CUDA context refuses every call. By the time this is thrown the runtime has either
 * <ul>
 *   <li><em>rebuilt</em> its context ({@link #rebuilt()}): the next call runs on a fresh context, and the arrays
 *       present on the device were restored from their host copies; or</li>
 *   <li><em>lost</em> the device, where the driver refuses a fresh context in this process (current drivers do after
 *       most sticky faults): every later {@code @Kernels} call runs as plain Java, and the data routines act as on
 *       the host.</li>
 * </ul>
 * Either way, arrays whose device copies a kernel had changed and not yet copied back ({@link #lostArrays()}) have
 * stale host copies: the runtime refuses them with a {@link DeviceLostException} until {@code Acc.delete} is called
 * on them. This call's results did not reach the host.
 *
 * <p>The message names what was running, the CUDA error (the {@link DriverException} is the cause) and what
 * followed.
 */
public final class DeviceFaultException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String what;
    private final int result;
    private final boolean rebuilt;
    private final java.util.List<String> lostArrays;

    /**
     * @param what       what was running, e.g. {@code Saxpy.run (kernel run_loop_14)}
     * @param fault      the driver's failure
     * @param restored   present arrays restored from the host, or -1 when the rebuild failed
     * @param rebuild    why the rebuild failed (the device is lost), null when it succeeded
     * @param lostArrays arrays whose device-side changes were lost, described
     */
    public DeviceFaultException(String what, DriverException fault, int restored, RuntimeException rebuild,
                                java.util.List<String> lostArrays) {
        super(message(what, fault, restored, rebuild, lostArrays), fault);
        this.what = what;
        this.result = fault.result();
        this.rebuilt = rebuild == null;
        this.lostArrays = java.util.List.copyOf(lostArrays);
        if (rebuild != null) {
            addSuppressed(rebuild);
        }
    }

    /** What was running when the device faulted. */
    public String what() {
        return what;
    }

    /** The sticky {@code CUresult} code. */
    public int result() {
        return result;
    }

    /** Whether the context was rebuilt, so the next call runs on the device; false when the device is lost. */
    public boolean rebuilt() {
        return rebuilt;
    }

    /** The arrays whose device-side changes were lost (their host copies are stale), described. */
    public java.util.List<String> lostArrays() {
        return lostArrays;
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

    private static String message(String what, DriverException fault, int restored, RuntimeException rebuild,
                                  java.util.List<String> lostArrays) {
        String head = "acc4j: the device faulted in " + what + ": " + fault.getMessage().lines().findFirst().orElse("");
        String body;
        if (rebuild != null) {
            body = ". The driver gave no new CUDA context after it (" + rebuild.getMessage().lines().findFirst()
                    .orElse("") + "), so the device is lost for the rest of this process: @Kernels methods run as"
                    + " plain Java from now on, and this call's results did not reach the host";
        } else {
            body = ". The CUDA context was rebuilt and the next call runs normally; " + restored
                    + (restored == 1 ? " array present on the device was" : " arrays present on the device were")
                    + " restored from the host's copy, and this call's results did not reach the host";
        }
        if (lostArrays.isEmpty()) {
            return head + body;
        }
        int shown = Math.min(lostArrays.size(), 8);
        return head + body + ". Lost with the device: the changes kernels had made to " + lostArrays.size()
                + (lostArrays.size() == 1 ? " array" : " arrays") + " not yet copied back ("
                + String.join(", ", lostArrays.subList(0, shown)) + (shown < lostArrays.size() ? ", ..." : "")
                + "); acc4j refuses them from now on, until Acc.delete is called on each";
    }
}
