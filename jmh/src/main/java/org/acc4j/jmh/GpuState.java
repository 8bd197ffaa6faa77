package org.acc4j.jmh;

import org.acc4j.Acc;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * acc4j on the GPU: one call of a sample's {@code @Kernels} method (parameter {@code variant}: the mapping or
 * the transpose/copy tuning) at parameter {@code size}, timed in one of two ways:
 * <ul>
 *   <li>{@link Transfers#RESIDENT}, kernel only: every array was put on the device by {@link Acc#copyin} in the
 *       setup, so the call moves no data; its kernels cannot raise a Java exception once their bounds are proven, so
 *       the call returns once they are queued (deferred launches, {@code ACC4J_DEFER}) and JMH times back-to-back
 *       calls, each queued behind the last, as the peers time back-to-back launches ({@code -Dacc4j.defer=off}
 *       times each call with its synchronisation);
 *   <li>{@link Transfers#EACH_CALL}, total: nothing is present, so each call copies its inputs in and its outputs
 *       out (pageable host memory), as a call outside any data region does.
 * </ul>
 *
 * <p>Before anything is timed the setup proves where the kernel runs and that it is right: with every array
 * present and the host's outputs zero, one call must leave the host's outputs untouched (it wrote the device
 * copies; a host run writes the host arrays), and the device's outputs, copied back, must equal plain Java bit
 * for bit. A kernel that runs on the host (no agent, no GPU, or a construct the compiler refuses) fails the
 * setup with the reason, so host time is never reported as GPU time; {@code -Dbench.allowHost=true} (smoke runs
 * on a machine without a GPU) times it anyway and the report marks such a run as a host run.
 */
public abstract class GpuState {
    /** Whether a call's data is already on the device. */
    public enum Transfers { RESIDENT, EACH_CALL }

    /** The system property that lets GPU modes run on the host, for smoke runs. */
    public static final String ALLOW_HOST = "bench.allowHost";

    private final Sample sample;
    private final Transfers transfers;
    Workload workload;
    Kernel kernel;
    Object[] args;
    private boolean entered;

    protected GpuState(Sample sample, Transfers transfers) {
        this.sample = sample;
        this.transfers = transfers;
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        setUp(params.getParam("size"), params.getParam("variant"));
    }

    void setUp(String size, String variant) {
        workload = Workload.of(sample, size);
        kernel = sample.offloaded().apply(variant);
        args = workload.freshArgs();
        Acc.init();
        String where = Acc.onDevice() ? probe() : "the host: no GPU runtime (" + Acc.deviceName()
                + "; start with -javaagent:acc.jar on a machine with a CUDA GPU)";
        if (where != null) {
            if (!Boolean.getBoolean(ALLOW_HOST)) {
                throw new IllegalStateException("acc4j ran " + kernel + " on " + where
                        + ": not timed, host time is not GPU time (-D" + ALLOW_HOST + "=true times it anyway)");
            }
            System.out.println("# HOST RUN: " + kernel + " runs on " + where + "; timed as asked (-D" + ALLOW_HOST
                    + ")");
            workload.clearOutputs(args);
            workload.check(kernel.name(), args, kernel.call(args));
            return;
        }
        if (transfers == Transfers.EACH_CALL) {
            Acc.delete(Workload.arrays(args));
            entered = false;
            workload.clearOutputs(args);
            workload.check(kernel + " with transfers", args, kernel.call(args));
        }
        System.out.println("# " + kernel + " at " + workload.size + " on " + Acc.deviceName() + ", "
                + (transfers == Transfers.RESIDENT ? "data resident (kernel only)" : "data copied in and out each call")
                + (workload.sampled() ? ", checked on " + Workload.SAMPLES + " sampled elements" : ", checked in full"));
    }

    /**
     * One call with every array present: null when it ran on the device and was right, else where it ran.
     * Leaves the arrays present, holding the result.
     */
    private String probe() {
        Acc.copyin(Workload.arrays(args));
        entered = true;
        Object returned = kernel.call(args);
        boolean onDevice = workload.outputsUntouched(args);
        Object[] outputs = workload.outputs(args);
        if (outputs.length == 0) {
            // a reduction writes no array: nothing shows where it ran but the runtime's word
            System.out.println("# " + kernel + " writes no array: on the device by Acc.onDevice() only");
        } else {
            Acc.updateHost(outputs);
        }
        if (!onDevice) {
            return "the host for this call (see the acc4j: line on stderr for why)";
        }
        workload.check(kernel.name(), args, returned);
        return null;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (entered) {
            Acc.delete(Workload.arrays(args));
            entered = false;
        }
    }

    /** One call. */
    public Object run() {
        return kernel.call(args);
    }
}
