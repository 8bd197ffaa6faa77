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
import org.acc4j.runtime.launch.CallClock;
import org.acc4j.samples.PairedStats;

/**
 * What one call costs, in one process: a raw JCuda launch and synchronisation of a trivial kernel (the floor) and a
 * {@code @Kernels} call of the same loop on present data at n = 0 (no launch: the runtime's own work alone), 1 and
 * 1024, each followed by {@code Acc.waitAll()} (a call on present data returns once its kernel is queued; the wait
 * makes it a call plus its completion, as the raw side's launch plus synchronisation is), measured in pairs: each of {@code --rounds} rounds runs a block of {@code --block} calls of each of the five
 * (raw at n = 1 and 1024, {@code @Kernels} at n = 0, 1 and 1024) in an order shuffled per round, and a round's
 * difference is its {@code @Kernels} block's median less its raw block's at the same n. The table gives the median
 * of those differences with a distribution-free 95 % interval ({@link PairedStats}), so that a drift of the machine
 * during the run (clocks, other processes) moves both sides of a pair alike. Before them, the driver calls the
 * runtime adds around a launch, each timed on its own as context; after them, the bytes each kind of call allocates
 * (the thread's allocated bytes over {@code --calls} calls). With {@code -Dacc4j.callClock=true} (or {@code alloc},
 * which also counts each part's allocated bytes) it ends with the runtime's own parts of a call ({@link
 * org.acc4j.runtime.launch.CallClock}), each part's median per n; the clock's own reads then add to the pairs.
 *
 * <p>Run under the agent, on the GPU machine from a packed {@code .gpu/} ({@code scripts/gpu-pack.sh}):
 * {@code bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp
 * ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar" org.acc4j.samples.bench.LaunchBench
 * [--rounds 400] [--block 50] [--calls 20000]}, or {@code bash scripts/call-check.sh}, which runs it in several fresh
 * JVMs; add {@code -Dacc4j.mapped=false} to see the error record copied back instead.
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

    /** The five kinds of call measured in pairs. */
    private static final String[] KINDS = {"raw JCuda: cuLaunchKernel + cuCtxSynchronize (n = 1)",
        "raw JCuda at n = 1024", "@Kernels call, n = 0 (no launch: the runtime's own work)",
        "@Kernels call, n = 1, present data", "@Kernels call, n = 1024, present data"};
    private static final int RAW1 = 0;
    private static final int RAW1024 = 1;
    private static final int ACC0 = 2;
    private static final int ACC1 = 3;
    private static final int ACC1024 = 4;

    public static void main(String[] args) {
        int calls = 20000;
        int rounds = 400;
        int block = 50;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--block" -> block = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(
                        "usage: LaunchBench [--rounds 400] [--block 50] [--calls 20000]");
            }
        }
        Acc.install(AccRuntime.get().backend());
        Acc.init();
        if (!AccRuntime.get().onDevice()) {
            System.out.println("no CUDA device: nothing to measure");
            return;
        }
        double[] a = new double[1024];
        Acc.copyin(a);
        // how many times each n ran, for the check at the end; the first call compiles and loads the kernel
        long[] ran = new long[3];
        addOne(a, 1024);
        ran[2]++;
        Context context = Context.open(Device.all().get(0));
        CUmodule module = new CUmodule();
        CUfunction f = new CUfunction();
        Addressed d = new Addressed();
        check(JCudaDriver.cuModuleLoadData(module, (PTX + "\0").getBytes(StandardCharsets.US_ASCII)), "load");
        check(JCudaDriver.cuModuleGetFunction(f, module, "add_one"), "function");
        check(JCudaDriver.cuMemAlloc(d, 8 * 1024), "alloc");
        MappedMemory mapped = MappedMemory.allocate(4096, "the launch benchmark");
        try {
            int[] n1 = {1};
            int[] n1024 = {1024};
            Pointer params = Pointer.to(Pointer.to(d), Pointer.to(n1));
            Pointer params1024 = Pointer.to(Pointer.to(d), Pointer.to(n1024));
            long[] record = new long[2];
            CUdeviceptr recordDevice = new CUdeviceptr();
            check(JCudaDriver.cuMemAlloc(recordDevice, 16), "alloc");
            LaunchArgs la = new LaunchArgs(mapped, 0, 2);
            Pointer laTable = mapped.pointer(0);
            Call[] kinds = {
                () -> {
                    check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                    check(JCudaDriver.cuCtxSynchronize(), "sync");
                },
                () -> {
                    check(JCudaDriver.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, null, params1024, null), "launch");
                    check(JCudaDriver.cuCtxSynchronize(), "sync");
                },
                () -> {
                    addOne(a, 0);
                    Acc.waitAll();
                    ran[0]++;
                },
                () -> {
                    addOne(a, 1);
                    Acc.waitAll();
                    ran[1]++;
                },
                () -> {
                    addOne(a, 1024);
                    Acc.waitAll();
                    ran[2]++;
                },
            };
            System.out.printf(Locale.ROOT, "device: %s; %d paired rounds of %d calls of each kind in shuffled order,"
                    + " after %d untimed calls of each; microseconds per call%n", Device.all().get(0).name(), rounds,
                    block, calls);
            System.out.println("each @Kernels call is followed by Acc.waitAll(), which waits for its kernel: a call on"
                    + " present data returns once its kernel is queued, so call plus wait is what compares with the"
                    + " raw launch plus cuCtxSynchronize");
            System.out.println();
            // every kind warmed up first, the runtime's path compiled by the JIT
            for (Call c : kinds) {
                time(calls, c);
            }
            System.out.println("| what | median us | mean us | ratio to raw launch+sync |");
            System.out.println("| --- | ---: | ---: | ---: |");
            int alone = Math.max(1000, calls / 4);
            double[] rawAlone = time(alone, kinds[RAW1]);
            row("raw, parameters built per call (Pointer.to)", time(alone, () -> {
                Pointer p = Pointer.to(Pointer.to(d), Pointer.to(new int[] {1}));
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, p, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            }), rawAlone);
            row("raw, parameters in mapped memory (the runtime's way)", time(alone, () -> {
                la.putPointer(0, d.address());
                la.putInt(1, 1);
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, laTable, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
            }), rawAlone);
            row("raw + a 16-byte cuMemcpyDtoH (an error record copied back)", time(alone, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
                check(JCudaDriver.cuMemcpyDtoH(Pointer.to(record), recordDevice, 16), "copy");
            }), rawAlone);
            row("raw + reading a mapped error record", time(alone, () -> {
                check(JCudaDriver.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null, params, null), "launch");
                check(JCudaDriver.cuCtxSynchronize(), "sync");
                if (mapped.view().getLong(2048) != 0) {
                    throw new IllegalStateException("the record is not clear");
                }
            }), rawAlone);
            row("cuCtxSetCurrent alone (each entry into the device lock)", time(alone, context::makeCurrent),
                    rawAlone);
            check(JCudaDriver.cuMemFree(recordDevice), "free");

            Paired paired = paired(kinds, rounds, block, new java.util.Random(20261124L));
            for (int k = 0; k < KINDS.length; k++) {
                row(KINDS[k], new double[] {paired.median(k), paired.mean(k)}, new double[] {paired.median(RAW1)});
            }
            System.out.println();
            System.out.println("| paired, per round (block medians) | median us | 95% interval us | rounds |");
            System.out.println("| --- | ---: | ---: | ---: |");
            PairedStats.Interval own = PairedStats.medianInterval(paired.blocks[ACC0]);
            PairedStats.Interval over1 = PairedStats.medianInterval(PairedStats.minus(paired.blocks[ACC1],
                    paired.blocks[RAW1]));
            PairedStats.Interval over1024 = PairedStats.medianInterval(PairedStats.minus(paired.blocks[ACC1024],
                    paired.blocks[RAW1024]));
            interval("@Kernels n = 0: the runtime's own work, no launch", own, rounds);
            interval("@Kernels n = 1 less raw n = 1", over1, rounds);
            interval("@Kernels n = 1024 less raw n = 1024", over1024, rounds);
            System.out.println();
            System.out.printf(Locale.ROOT, "runtime overhead over raw launch+sync (median of paired differences, 95%%"
                    + " interval): n = 1: %.2f us [%.2f, %.2f], n = 1024: %.2f us [%.2f, %.2f] (target: at most 3"
                    + " us); its own work without a launch: %.2f us [%.2f, %.2f]%n", over1.median(), over1.low(),
                    over1.high(), over1024.median(), over1024.low(), over1024.high(), own.median(), own.low(),
                    own.high());
            System.out.printf(Locale.ROOT, "allocated per call (this thread's allocated bytes over %d calls): raw n = 1:"
                    + " %.1f B, @Kernels n = 0: %.1f B, n = 1: %.1f B, n = 1024: %.1f B%n", calls,
                    allocated(calls, kinds[RAW1]), allocated(calls, kinds[ACC0]), allocated(calls, kinds[ACC1]),
                    allocated(calls, kinds[ACC1024]));
            if (CallClock.ON) {
                parts(kinds, calls);
            }

            // the @Kernels calls really ran: element 0 went up once per call at n >= 1, the others at n = 1024
            Acc.updateHost(a);
            int bad = 0;
            for (int i = 0; i < a.length; i++) {
                double expected = ran[2] + (i == 0 ? ran[1] : 0);
                bad += a[i] == expected ? 0 : 1;
            }
            int plan = AccRuntime.get().sites().find(LaunchBench.class.getName(), "addOne");
            long[] st = plan < 0 ? new long[4] : AccRuntime.get().sites().stats(plan);
            System.out.println("the @Kernels calls ran their nest " + st[0] + " times on the device and " + st[1]
                    + " times on the host" + (plan < 0 ? " (not rewritten: run it with -javaagent:acc.jar)" : ""));
            System.out.println(bad == 0 ? "check: every element as plain Java computes it"
                    : "check FAILED: " + bad + " elements differ from plain Java (a[0] = " + a[0] + ", expected "
                    + (ran[2] + ran[1]) + "; a[1] = " + a[1] + ", expected " + ran[2] + ")");
        } finally {
            mapped.close();
            JCudaDriver.cuMemFree(d);
            JCudaDriver.cuModuleUnload(module);
            Acc.delete(a);
            Acc.shutdown();
            context.close();
        }
    }

    /** Each kind's block medians by round, and every timed call's time, in microseconds. */
    private record Paired(double[][] blocks, double[][] calls) {
        double median(int kind) {
            return PairedStats.median(calls[kind]);
        }

        double mean(int kind) {
            return PairedStats.mean(calls[kind]);
        }
    }

    /** {@code rounds} rounds of a block of {@code block} calls of each kind, in an order shuffled per round. */
    private static Paired paired(Call[] kinds, int rounds, int block, java.util.Random random) {
        double[][] blocks = new double[kinds.length][rounds];
        double[][] all = new double[kinds.length][rounds * block];
        long[] nanos = new long[block];
        for (int r = 0; r < rounds; r++) {
            for (int k : PairedStats.order(kinds.length, random)) {
                Call c = kinds[k];
                for (int i = 0; i < block; i++) {
                    long t0 = System.nanoTime();
                    c.run();
                    nanos[i] = System.nanoTime() - t0;
                    all[k][r * block + i] = nanos[i] / 1e3;
                }
                blocks[k][r] = PairedStats.median(nanos, block) / 1e3;
            }
        }
        return new Paired(blocks, all);
    }

    private static void interval(String what, PairedStats.Interval i, int rounds) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | [%.2f, %.2f] | %d |%n", what, i.median(), i.low(), i.high(),
                rounds);
    }

    /** The bytes this thread allocates per call of {@code c}, over {@code calls} calls. */
    private static double allocated(int calls, Call c) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long b0 = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            c.run();
        }
        return (double) (mx.getCurrentThreadAllocatedBytes() - b0) / calls;
    }

    /** The runtime's parts of a call ({@link CallClock}), each part's median at each n. */
    private static void parts(Call[] kinds, int calls) {
        int[] measured = {ACC0, ACC1, ACC1024};
        double[][] medians = new double[measured.length][CallClock.Part.values().length];
        double[][] bytes = new double[measured.length][CallClock.Part.values().length];
        for (int m = 0; m < measured.length; m++) {
            CallClock.reset();
            for (int i = 0; i < calls; i++) {
                kinds[measured[m]].run();
            }
            for (CallClock.Part p : CallClock.Part.values()) {
                long[] s = CallClock.samples(p);
                medians[m][p.ordinal()] = s.length == 0 ? Double.NaN : PairedStats.median(s, s.length) / 1e3;
                bytes[m][p.ordinal()] = CallClock.bytesPerCall(p);
            }
        }
        System.out.println();
        System.out.println("parts of a @Kernels call (-Dacc4j.callClock" + (CallClock.BYTES ? "=alloc" : "")
                + "; each part's median over " + calls + " calls; the clock's reads add to the times above)");
        System.out.println();
        System.out.println("| part | n = 0 us | n = 1 us | n = 1024 us |" + (CallClock.BYTES ? " bytes per call (n = 1) |"
                : ""));
        System.out.println("| --- | ---: | ---: | ---: |" + (CallClock.BYTES ? " ---: |" : ""));
        double[] sums = new double[measured.length];
        for (CallClock.Part p : CallClock.Part.values()) {
            StringBuilder line = new StringBuilder("| " + p.what() + " |");
            for (int m = 0; m < measured.length; m++) {
                double v = medians[m][p.ordinal()];
                line.append(Double.isNaN(v) ? " - |" : String.format(Locale.ROOT, " %.2f |", v));
                sums[m] += Double.isNaN(v) ? 0 : v;
            }
            if (CallClock.BYTES) {
                line.append(String.format(Locale.ROOT, " %.1f |", bytes[1][p.ordinal()]));
            }
            System.out.println(line);
        }
        System.out.printf(Locale.ROOT, "| sum of the parts' medians | %.2f | %.2f | %.2f |%s%n", sums[0], sums[1],
                sums[2], CallClock.BYTES ? " |" : "");
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
