package org.acc4j.jmh;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.cuda.Device;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Transfers of a {@code double[]} of {@code mib} MiB, acc4j against raw JCuda in the same run: {@code updateDevice}
 * and {@code updateHost} of a present array, {@code copyin} then {@code delete}, against {@code cuMemcpyHtoD} and
 * {@code cuMemcpyDtoH} from pinned memory ({@code cuMemHostAlloc}: the link's speed, the goal's yardstick) and from
 * the Java array itself (pageable). GB/s = 2^20 * mib / (the time per call). The setup checks that a round trip
 * through the device brings every element back.
 *
 * <p>Run under the agent on the GPU machine: {@code java -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar
 * TransferRates -f 0} (add {@code -p mib=8,512} for fewer sizes). Not in the default benchmark set.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 300, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class TransferRates {
    @Param({"1", "8", "64", "512", "1024"})
    public int mib;

    private double[] a;
    private double[] present;
    private Context context;
    private CUdeviceptr device;
    private Pointer pinned;
    private long bytes;

    @Setup(Level.Trial)
    public void setUp() {
        Acc.init();
        if (!Acc.onDevice()) {
            throw new IllegalStateException("no GPU runtime (" + Acc.deviceName() + "): run with -javaagent:acc.jar on"
                    + " a machine with a CUDA GPU");
        }
        bytes = (long) mib << 20;
        a = new double[(int) (bytes / 8)];
        Arrays.parallelSetAll(a, i -> i * 0.5 + 1);
        present = a.clone();
        Acc.copyin(present);
        Arrays.fill(present, 0);
        Acc.updateHost(present);
        if (!Arrays.equals(a, present)) {
            throw new IllegalStateException("a round trip through the device changed the array: not timed");
        }
        context = Context.open(Device.all().get(0));
        device = new CUdeviceptr();
        pinned = new Pointer();
        check(JCudaDriver.cuMemAlloc(device, bytes), "cuMemAlloc");
        check(JCudaDriver.cuMemHostAlloc(pinned, bytes, 0), "cuMemHostAlloc");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        JCudaDriver.cuMemFreeHost(pinned);
        JCudaDriver.cuMemFree(device);
        Acc.delete(present);
        context.close();
    }

    @Benchmark
    public void updateDevice() {
        Acc.updateDevice(present);
    }

    @Benchmark
    public void updateHost() {
        Acc.updateHost(present);
    }

    @Benchmark
    public void copyinDelete() {
        Acc.copyin(a);
        Acc.delete(a);
    }

    @Benchmark
    public void rawPinnedToDevice() {
        context.makeCurrent();
        check(JCudaDriver.cuMemcpyHtoD(device, pinned, bytes), "cuMemcpyHtoD");
    }

    @Benchmark
    public void rawPinnedToHost() {
        context.makeCurrent();
        check(JCudaDriver.cuMemcpyDtoH(pinned, device, bytes), "cuMemcpyDtoH");
    }

    @Benchmark
    public void rawPageableToDevice() {
        context.makeCurrent();
        check(JCudaDriver.cuMemcpyHtoD(device, Pointer.to(a), bytes), "cuMemcpyHtoD");
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the transfer benchmark");
    }
}
