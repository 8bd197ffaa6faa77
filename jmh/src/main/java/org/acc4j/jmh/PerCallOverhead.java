package org.acc4j.jmh;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.Kernels;
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
 * What one call costs against a raw JCuda launch and synchronisation of the same loop, both in this run: {@code raw}
 * launches a hand-written kernel ({@code a[i] += 1} for i &lt; n) with {@code cuLaunchKernel} and waits with
 * {@code cuCtxSynchronize}; {@code acc4j} calls a {@code @Kernels} method with that loop on an array made present by
 * {@code Acc.copyin} (no data moves) and then {@code Acc.waitAll()}, since the call returns once its kernel is queued. The ratio acc4j / raw at each n is the runtime's per-call overhead; the goal is
 * a difference of at most 3 us. The setup checks that the {@code @Kernels} method runs on the device (its result
 * stays on the device: the host array is untouched) and computes what plain Java computes.
 *
 * <p>Run under the agent on the GPU machine: {@code java -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar
 * PerCallOverhead -f 0}. (Not in the default benchmark set, whose report is per sample.)
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class PerCallOverhead {
    /** The same loop by hand: one thread per element. */
    static final String PTX = """
            .version 7.0
            .target sm_70
            .address_size 64

            .visible .entry add_one(.param .u64 p_a, .param .u32 p_n)
            {
            \t.reg .pred %p<2>;
            \t.reg .b32 %r<6>;
            \t.reg .b64 %rd<5>;
            \t.reg .f64 %fd<3>;
            \tld.param.u64 %rd1, [p_a];
            \tld.param.u32 %r1, [p_n];
            \tmov.u32 %r2, %ctaid.x;
            \tmov.u32 %r3, %ntid.x;
            \tmov.u32 %r4, %tid.x;
            \tmad.lo.s32 %r5, %r2, %r3, %r4;
            \tsetp.ge.s32 %p1, %r5, %r1;
            \t@%p1 bra DONE;
            \tcvta.to.global.u64 %rd2, %rd1;
            \tmul.wide.s32 %rd3, %r5, 8;
            \tadd.s64 %rd4, %rd2, %rd3;
            \tld.global.f64 %fd1, [%rd4];
            \tadd.f64 %fd2, %fd1, 0d3FF0000000000000;
            \tst.global.f64 [%rd4], %fd2;
            DONE:
            \tret;
            }
            """;

    @Param({"1", "1024"})
    public int n;

    private final double[] a = new double[1024];
    private Context context;
    private CUmodule module;
    private CUfunction function;
    private CUdeviceptr device;
    private Pointer params;
    private int blocks;

    @Kernels
    static void addOne(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] + 1.0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        Acc.init();
        if (!Acc.onDevice()) {
            throw new IllegalStateException("no GPU runtime (" + Acc.deviceName() + "): run with -javaagent:acc.jar on"
                    + " a machine with a CUDA GPU");
        }
        java.util.Arrays.fill(a, 0);
        Acc.copyin(a);
        addOne(a, n);
        if (a[0] != 0) {
            throw new IllegalStateException("addOne ran on the host: not timed");
        }
        Acc.updateHost(a);
        for (int i = 0; i < a.length; i++) {
            if (a[i] != (i < n ? 1.0 : 0.0)) {
                throw new IllegalStateException("addOne gave " + a[i] + " at " + i + ", plain Java " + (i < n ? 1 : 0));
            }
        }
        context = Context.open(Device.all().get(0));
        module = new CUmodule();
        function = new CUfunction();
        device = new CUdeviceptr();
        check(JCudaDriver.cuModuleLoadData(module, (PTX + "\0").getBytes(StandardCharsets.US_ASCII)), "load");
        check(JCudaDriver.cuModuleGetFunction(function, module, "add_one"), "function");
        check(JCudaDriver.cuMemAlloc(device, 8L * a.length), "alloc");
        params = Pointer.to(Pointer.to(device), Pointer.to(new int[] {n}));
        blocks = (n + 255) / 256;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        JCudaDriver.cuMemFree(device);
        JCudaDriver.cuModuleUnload(module);
        Acc.delete(a);
        context.close();
    }

    @Benchmark
    public void raw() {
        check(JCudaDriver.cuLaunchKernel(function, blocks, 1, 1, 256, 1, 1, 0, null, params, null), "launch");
        check(JCudaDriver.cuCtxSynchronize(), "sync");
    }

    @Benchmark
    public void acc4j() {
        addOne(a, n);
        // a call on present data returns once its kernel is queued: the wait makes it a call plus its completion
        Acc.waitAll();
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the per-call benchmark");
    }
}
