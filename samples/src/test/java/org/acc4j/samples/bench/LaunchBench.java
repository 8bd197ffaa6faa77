package org.acc4j.samples.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.LaunchArgs;
import org.acc4j.runtime.cuda.MappedMemory;

/**
 * What one call costs, in one process: a raw JCuda launch and synchronisation of a trivial kernel (the floor), the
 * driver calls the runtime adds around a launch, and a {@code @Kernels} call of the same loop on present data at
 * n = 0 (no launch: the runtime's own work alone), 1 and 1024. Each figure is the median (and the mean) of
 * {@code --calls} timed calls after as many untimed ones, in microseconds.
 *
 * <p>Run under the agent, on the GPU machine from a packed {@code .gpu/} ({@code scripts/gpu-pack.sh}):
 * {@code bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
 * org.acc4j.samples.bench.LaunchBench [--calls 20000]}; add {@code -Dacc4j.mapped=false} to see the error record
 * copied back instead.
 */
public final class LaunchBench {
    private LaunchBench() {
    }

    /** The loop the {@code @Kernels} calls run; the raw kernel below does the same. */
    @Kernels
    static void addOne(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] + 1.0;
        }
    }

    /** The same loop by hand: one thread per element, no bounds record. */
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

    interface Call {
        void run();
    }

    public static void main(String[] args) {
        int calls = 20000;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--calls")) {
                calls = Integer.parseInt(args[++i]);
            } else {
                throw new IllegalArgumentException("usage: LaunchBench [--calls 20000]");
            }
        }
        Acc.install(AccRuntime.get().backend());
        Acc.init();
        if (!AccRuntime.get().onDevice()) {
            System.out.println("no CUDA device: nothing to measure");
            return;
        }
        double[] a = new double[1024];
        double[] expected = new double[1024];
        Acc.copyin(a);
        // the @Kernels method first: its kernel compiled and loaded before anything is timed
        addOne(a, 1024);
        Context context = Context.open(Device.all().get(0));
        CUmodule module = new CUmodule();
        CUfunction f = new CUfunction();
        Addressed d = new Addressed();
        check(JCudaDriver.cuModuleLoadData(module, (PTX + "\0").getBytes(StandardCharsets.US_ASCII)), "load");
        check(JCudaDriver.cuModuleGetFunction(f, module, "add_one"), "function");
        check(JCudaDriver.cuMemAlloc(d, 8 * 1024), "alloc");
        MappedMemory mapped = MappedMemory.allocate(4096, "the launch benchmark");
        try {
            int[] n = {1};
            Pointer params = Pointer.to(Pointer.to(d), Pointer.to(n));
            long[] record = new long[2];
            CUdeviceptr recordDevice = new CUdeviceptr();
            check(JCudaDriver.cuMemAlloc(recordDevice, 16), "alloc");
            LaunchArgs la = new LaunchArgs(mapped, 0, 2);
            Pointer laTable = mapped.pointer(0);
            System.out.printf(Locale.ROOT, "device: %s; %d calls each, after as many untimed; microseconds per call%n",
                    Device.all().get(0).name(), calls);
            System.out.println();
            System.out.println("| what | median us | mean us | ratio to raw launch+sync |");
            System.out.println("| --- | ---: | ---: | ---: |");
            double[] raw = time(calls, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            });
            row("raw JCuda: cuLaunchKernel + cuCtxSynchronize (n = 1)", raw, raw);
            n[0] = 1024;
            row("raw JCuda at n = 1024", time(calls, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            }), raw);
            n[0] = 1;
            row("raw, parameters built per call (Pointer.to)", time(calls, () -> {
                Pointer p = Pointer.to(Pointer.to(d), Pointer.to(new int[] {1}));
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, p, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            }), raw);
            row("raw, parameters in mapped memory (the runtime's way)", time(calls, () -> {
                la.putPointer(0, d.address());
                la.putInt(1, 1);
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, laTable, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            }), raw);
            row("raw + a 16-byte cuMemcpyDtoH (an error record copied back)", time(calls, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
                check(JCudaDriver.cuMemcpyDtoH(Pointer.to(record), recordDevice, 16), "copy");
            }), raw);
            row("raw + reading a mapped error record", time(calls, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
                if (mapped.view().getLong(2048) != 0) {
                    throw new IllegalStateException("the record is not clear");
                }
            }), raw);
            row("cuCtxSetCurrent alone (each entry into the device lock)", time(calls, context::makeCurrent), raw);
            check(JCudaDriver.cuMemFree(recordDevice), "free");

            double[] acc0 = time(calls, () -> addOne(a, 0));
            row("@Kernels call, n = 0 (no launch: the runtime's own work)", acc0, raw);
            double[] acc1 = time(calls, () -> addOne(a, 1));
            row("@Kernels call, n = 1, present data", acc1, raw);
            double[] acc1024 = time(calls, () -> addOne(a, 1024));
            row("@Kernels call, n = 1024, present data", acc1024, raw);
            System.out.println();
            System.out.printf(Locale.ROOT, "runtime overhead over raw launch+sync: n = 1: %.2f us, n = 1024: %.2f us"
                    + " (target: at most 3 us); of which its own work without a launch: %.2f us%n",
                    acc1[0] - raw[0], acc1024[0] - raw[0], acc0[0]);

            // the @Kernels calls really ran: element 0 went up once per call at n >= 1, the others at n = 1024
            Acc.updateHost(a);
            // once at first, then 2 * calls at n = 1 (element 0) and 2 * calls at n = 1024 (all)
            for (int i = 0; i < expected.length; i++) {
                expected[i] = 1.0 + 2.0 * calls + (i == 0 ? 2.0 * calls : 0);
            }
            int bad = 0;
            for (int i = 0; i < a.length; i++) {
                bad += a[i] == expected[i] ? 0 : 1;
            }
            int plan = AccRuntime.get().sites().find(LaunchBench.class.getName(), "addOne");
            long[] st = plan < 0 ? new long[4] : AccRuntime.get().sites().stats(plan);
            System.out.println("the @Kernels calls ran their nest " + st[0] + " times on the device and " + st[1]
                    + " times on the host" + (plan < 0 ? " (not rewritten: run it with -javaagent:acc.jar)" : ""));
            System.out.println(bad == 0 ? "check: every element as plain Java computes it"
                    : "check FAILED: " + bad + " elements differ from plain Java (a[0] = " + a[0] + ", expected "
                    + expected[0] + "; a[1] = " + a[1] + ", expected " + expected[1] + ")");
        } finally {
            mapped.close();
            JCudaDriver.cuMemFree(d);
            JCudaDriver.cuModuleUnload(module);
            Acc.delete(a);
            Acc.shutdown();
            context.close();
        }
    }

    /** A device pointer whose address can be read (JCuda keeps it protected; a subclass may read it). */
    private static final class Addressed extends CUdeviceptr {
        long address() {
            return getNativePointer() + getByteOffset();
        }
    }

    private static void row(String what, double[] t, double[] raw) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", what, t[0], t[1], t[0] / raw[0]);
    }

    /** {median, mean} microseconds of {@code calls} timed calls after as many untimed ones. */
    private static double[] time(int calls, Call c) {
        for (int i = 0; i < calls; i++) {
            c.run();
        }
        long[] nanos = new long[calls];
        long total = 0;
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            c.run();
            nanos[i] = System.nanoTime() - t0;
            total += nanos[i];
        }
        Arrays.sort(nanos);
        return new double[] {nanos[calls / 2] / 1e3, total / 1e3 / calls};
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the launch benchmark");
    }
}
