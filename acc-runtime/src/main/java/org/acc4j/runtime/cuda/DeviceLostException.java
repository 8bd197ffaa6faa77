package org.acc4j.runtime.cuda;

/**
 * What a sticky fault took away, said when something later needs it. Two cases:
 * <ul>
 *   <li><em>an array's data</em> ({@link #array()} names it): a kernel had changed the array's device copy when the
 *       device faulted, and that change never reached the host, so the host copy is stale. The runtime refuses every
 *       operation on the array (a {@code @Kernels} call, a data clause, an {@code Acc} routine) rather than compute
 *       with stale values, until {@code Acc.delete} is called on it (after the program gave it the values it
 *       needs) or the runtime is shut down;</li>
 *   <li><em>the device itself</em> ({@link #array()} is null): the driver would not give the runtime a working
 *       context after the fault, so later work runs as plain Java; the runtime handles this itself, and it reaches a
 *       caller only from the test hook.</li>
 * </ul>
 * The cause is the {@link DeviceFaultException} of the fault.
 */
public final class DeviceLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String array;

    private DeviceLostException(String message, String array, DeviceFaultException fault) {
        super(message, fault);
        this.array = array;
    }

    /** The device is lost: {@code what} cannot run on it. */
    public static DeviceLostException device(String what, DeviceFaultException fault) {
        return new DeviceLostException("acc4j: " + what + " cannot run on the device: it was lost after a fault in "
                + fault.what() + "; the rest of this run is plain Java", null, fault);
    }

    /** {@code array}'s device-side changes were lost: {@code what} refuses it. */
    public static DeviceLostException array(String what, String array, DeviceFaultException fault) {
        return new DeviceLostException("acc4j: " + what + " refuses " + array + ": a kernel had changed it on the"
                + " device, and the change was lost when the device faulted in " + (fault == null ? "an earlier call"
                : fault.what()) + " before it was copied back, so the host's copy is stale. Give it the values it"
                + " needs, then call Acc.delete on it to use it again (or use a new array)", array, fault);
    }

    /** The lost array's description, such as {@code double[1024]}; null when the device itself is lost. */
    public String array() {
        return array;
    }
}
