package org.acc4j.runtime.transfer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.transfer.Harness.Op;
import org.acc4j.runtime.transfer.StagedCopy.Settings;

/**
 * Transfer throughput on the GPU, in one process: {@code Acc.copyin}, {@code copyout}, {@code updateDevice} and
 * {@code updateHost} of a {@code double[]} from 1 MiB to 1 GiB, against plain JCuda {@code cuMemcpyHtoD}/{@code DtoH}
 * from pinned memory ({@code cuMemHostAlloc}) and from the Java array itself (pageable: the direct path), with the
 * ratios to pinned. Then a sweep of the staging settings (slot size, slots, staging threads, piece size) at a few sizes, staged
 * straight through {@link StagedCopy}, to confirm or choose {@link Settings#DEFAULT}. Each figure is the median of
 * several timed copies after two untimed ones; GB/s are 10^9 bytes per second.
 *
 * <p>Run on the GPU machine from a packed {@code .gpu/} ({@code scripts/gpu-pack.sh}):
 * {@code bash .gpu/on-gpu.sh -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
 * org.acc4j.runtime.transfer.TransferBench [--sizes 1,8,64] [--no-sweep] [--sweep-sizes 8,64,512]
 * [--slot-mib 8,16,32,64] [--slots 2,3,4] [--threads 0,8,16]} (sizes in MiB; 0 threads: the common pool). The
 * sweep checks that each setting brings the array back element for element.
 */
public final class TransferBench {
    private static final long MIB = 1L << 20;

    private TransferBench() {
    }

    public static void main(String[] args) {
        long[] sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
        boolean sweep = true;
        boolean breakdown = false;
        long[] sweepSizes = {8, 64, 512};
        long[] slotMib = {8, 16, 32, 64};
        int[] slotCounts = {2, 3, 4};
        int[] threads = {0, Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
            Runtime.getRuntime().availableProcessors()};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = Harness.longs(args[++i]);
                case "--no-sweep" -> sweep = false;
                case "--breakdown" -> breakdown = true;
                case "--sweep-sizes" -> sweepSizes = Harness.longs(args[++i]);
                case "--slot-mib" -> slotMib = Harness.longs(args[++i]);
                case "--slots" -> slotCounts = Arrays.stream(Harness.longs(args[++i])).mapToInt(v -> (int) v).toArray();
                case "--threads" -> threads = Arrays.stream(Harness.longs(args[++i])).mapToInt(v -> (int) v).toArray();
                default -> throw new IllegalArgumentException("usage: TransferBench [--sizes 1,8,64 (MiB)] [--no-sweep]"
                        + " [--sweep-sizes 8,64,512 (MiB)] [--slot-mib 8,16,32,64] [--slots 2,3,4]"
                        + " [--threads 0,8,16 (0: the common pool)] [--breakdown]");
            }
        }
        Acc.install(AccRuntime.get().backend());
        Acc.init();
        if (!AccRuntime.get().onDevice()) {
            System.out.println("no CUDA device: nothing to measure");
            return;
        }
        Context context = Context.open(Device.all().get(0));
        try {
            Harness.printSetup(Device.all().get(0).name(), Settings.fromEnvironment(System.out::println));
            warmUp(context);
            if (breakdown) {
                breakdown(context);
            }
            table(context, sizes);
            if (sweep) {
                sweep(context, sweepSizes, slotMib, slotCounts, threads);
            }
        } finally {
            Acc.shutdown();
            context.close();
        }
    }

    private static void warmUp(Context context) {
        double[] a = new double[(int) (64 * MIB / 8)];
        for (int i = 0; i < 10; i++) {
            Acc.copyin(a);
            Acc.updateHost(a);
            Acc.copyout(a);
        }
        context.makeCurrent();
    }

    private static void table(Context context, long[] sizes) {
        System.out.println();
        Harness.header(0, "MiB", "copyin", "copyout", "updateDevice", "updateHost", "pinned H2D", "pinned D2H",
                "pageable H2D", "pageable D2H", "copyin/pinned", "copyout/pinned", "updateDevice/pinned",
                "updateHost/pinned");
        for (long mib : sizes) {
            long bytes = mib * MIB;
            double[] a = new double[(int) (bytes / 8)];
            Arrays.parallelSetAll(a, i -> i * 0.25);
            double copyin = rate(bytes, null, () -> Acc.copyin(a), () -> Acc.delete(a));
            double copyout = rate(bytes, () -> Acc.copyin(a), () -> Acc.copyout(a), null);
            Acc.copyin(a);
            double updateDevice = rate(bytes, null, () -> Acc.updateDevice(a), null);
            double updateHost = rate(bytes, null, () -> Acc.updateHost(a), null);
            Acc.delete(a);

            context.makeCurrent();
            CUdeviceptr device = new CUdeviceptr();
            Pointer pinned = new Pointer();
            check(JCudaDriver.cuMemAlloc(device, bytes), "cuMemAlloc");
            check(JCudaDriver.cuMemHostAlloc(pinned, bytes, 0), "cuMemHostAlloc");
            Pointer pageable = Pointer.to(a);
            double pinnedIn = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyHtoD(device, pinned, bytes), "H2D"), null);
            double pinnedOut = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyDtoH(pinned, device, bytes), "D2H"), null);
            double pageIn = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyHtoD(device, pageable, bytes), "H2D"), null);
            double pageOut = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyDtoH(pageable, device, bytes), "D2H"), null);
            check(JCudaDriver.cuMemFreeHost(pinned), "cuMemFreeHost");
            check(JCudaDriver.cuMemFree(device), "cuMemFree");
            System.out.printf(Locale.ROOT, "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f"
                            + " | %.2f |%n", mib, copyin, copyout, updateDevice, updateHost, pinnedIn, pinnedOut, pageIn,
                    pageOut, copyin / pinnedIn, copyout / pinnedOut, updateDevice / pinnedIn, updateHost / pinnedOut);
        }
    }

    /**
     * What a small copy costs, step by step, in microseconds (medians): the driver's allocation, free and pageable
     * copies of 1 MiB, against {@code Acc.copyin}, {@code delete}, {@code updateDevice}, {@code updateHost} and
     * {@code copyout} of the same array, to find the fixed cost of a copy beyond the copy itself.
     */
    private static void breakdown(Context context) {
        long bytes = MIB;
        double[] a = new double[(int) (bytes / 8)];
        Arrays.fill(a, 1.5);
        System.out.println();
        Harness.header(1, "1 MiB step", "us");
        context.makeCurrent();
        CUdeviceptr[] held = new CUdeviceptr[1];
        micros("cuMemAlloc", null, () -> {
            held[0] = new CUdeviceptr();
            check(JCudaDriver.cuMemAlloc(held[0], bytes), "cuMemAlloc");
        }, () -> check(JCudaDriver.cuMemFree(held[0]), "cuMemFree"));
        micros("cuMemFree", () -> {
            held[0] = new CUdeviceptr();
            check(JCudaDriver.cuMemAlloc(held[0], bytes), "cuMemAlloc");
        }, () -> check(JCudaDriver.cuMemFree(held[0]), "cuMemFree"), null);
        CUdeviceptr device = new CUdeviceptr();
        check(JCudaDriver.cuMemAlloc(device, bytes), "cuMemAlloc");
        micros("cuMemcpyHtoD pageable", null, () -> check(JCudaDriver.cuMemcpyHtoD(device, Pointer.to(a), bytes),
                "H2D"), null);
        micros("cuMemcpyDtoH pageable", null, () -> check(JCudaDriver.cuMemcpyDtoH(Pointer.to(a), device, bytes),
                "D2H"), null);
        micros("cuCtxSynchronize (idle)", null, () -> check(JCudaDriver.cuCtxSynchronize(), "sync"), null);
        check(JCudaDriver.cuMemFree(device), "cuMemFree");
        micros("Acc.copyin", null, () -> Acc.copyin(a), () -> Acc.delete(a));
        micros("Acc.delete", () -> Acc.copyin(a), () -> Acc.delete(a), null);
        micros("Acc.create", null, () -> Acc.create(a), () -> Acc.delete(a));
        Acc.copyin(a);
        micros("Acc.updateDevice", null, () -> Acc.updateDevice(a), null);
        micros("Acc.updateHost", null, () -> Acc.updateHost(a), null);
        micros("Acc.isPresent", null, () -> Acc.isPresent(a), null);
        Acc.delete(a);
        micros("Acc.copyout", () -> Acc.copyin(a), () -> Acc.copyout(a), null);
        context.makeCurrent();
    }

    private static void micros(String step, Op<RuntimeException> before, Op<RuntimeException> op,
                               Op<RuntimeException> after) {
        System.out.printf(Locale.ROOT, "| %s | %.1f |%n", step, Harness.medianNanos(5, 41, before, op, after) / 1e3);
    }

    /**
     * Staged copies straight through {@link StagedCopy} with other settings, against pinned copies of the same size:
     * every slot size with every slot count and every number of staging threads, then a few piece and chunk sizes.
     */
    private static void sweep(Context context, long[] sizes, long[] slotMib, int[] slotCounts, int[] threads) {
        System.out.println();
        System.out.println("Staging settings (GB/s to the device / to the host, and their ratios to pinned copies;"
                + " threads 0 = the common pool with the caller, " + (java.util.concurrent.ForkJoinPool
                .getCommonPoolParallelism() + 1) + " threads):");
        Harness.header(0, "MiB", "slot MiB", "slots", "threads", "min chunk MiB", "chunks per copy", "piece KiB", "H2D",
                "D2H", "H2D/pinned", "D2H/pinned");
        record Variant(Settings settings, int threads) {
        }
        List<Variant> variants = new ArrayList<>();
        for (long slot : slotMib) {
            for (int slots : slotCounts) {
                for (int t : threads) {
                    variants.add(new Variant(new Settings(0, slot * MIB, slots, 1, Math.min(slot, 2) * MIB, 4,
                            128 << 10), t));
                }
            }
        }
        for (long piece : new long[] {32 << 10, 512 << 10, 2 << 20}) {
            variants.add(new Variant(new Settings(0, 32 * MIB, 3, 1, 2 * MIB, 4, piece), 0));
        }
        for (int chunksPerCopy : new int[] {2, 8}) {
            variants.add(new Variant(new Settings(0, 32 * MIB, 3, 1, MIB, chunksPerCopy, 128 << 10), 0));
        }
        for (long mib : sizes) {
            long bytes = mib * MIB;
            double[] a = new double[(int) (bytes / 8)];
            Arrays.parallelSetAll(a, i -> i * 0.25);
            double[] back = new double[a.length];
            context.makeCurrent();
            try (DeviceBuffer device = DeviceBuffer.allocate(bytes, "the sweep")) {
                CUdeviceptr raw = new CUdeviceptr();
                Pointer pinned = new Pointer();
                check(JCudaDriver.cuMemAlloc(raw, bytes), "cuMemAlloc");
                check(JCudaDriver.cuMemHostAlloc(pinned, bytes, 0), "cuMemHostAlloc");
                double pinnedIn = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyHtoD(raw, pinned, bytes), "H2D"), null);
                double pinnedOut = rate(bytes, null, () -> check(JCudaDriver.cuMemcpyDtoH(pinned, raw, bytes), "D2H"), null);
                check(JCudaDriver.cuMemFreeHost(pinned), "cuMemFreeHost");
                check(JCudaDriver.cuMemFree(raw), "cuMemFree");
                for (Variant v : variants) {
                    Settings s = v.settings();
                    try (StagedCopy<DeviceBuffer> staged = new StagedCopy<>(s, CudaLane::open, v.threads())) {
                        double in = rate(bytes, null, () -> Harness.require(staged.toDevice(a, device)), null);
                        double out = rate(bytes, null, () -> Harness.require(staged.toHost(device, back)), null);
                        Harness.verify(a, back, "the staged copies of " + mib + " MiB with " + s + " and "
                                + v.threads() + " threads");
                        System.out.printf(Locale.ROOT, "| %d | %d | %d | %d | %.0f | %d | %d | %.1f | %.1f | %.2f |"
                                        + " %.2f |%n", mib, s.slotBytes() / MIB, s.slots(), v.threads(),
                                s.minChunkBytes() / (double) MIB, s.chunksPerCopy(), s.minPieceBytes() >> 10, in, out,
                                in / pinnedIn, out / pinnedOut);
                    }
                }
            }
        }
    }

    /** GB/s of {@code op}: the median of several timed runs after two untimed ones, each between the untimed others. */
    private static double rate(long bytes, Op<RuntimeException> before, Op<RuntimeException> op,
                               Op<RuntimeException> after) {
        int reps = (int) Math.max(5, Math.min(30, (4L << 30) / bytes));
        return bytes / (double) Harness.medianNanos(2, reps, before, op, after);
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the transfer benchmark");
    }
}
