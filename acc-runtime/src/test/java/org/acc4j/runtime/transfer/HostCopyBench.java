package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.PinnedBuffer;

/**
 * The host's side of a staged copy alone: a {@code double[]} copied into pinned memory and back by {@code t} threads,
 * each taking one contiguous share, with each way the copy can be done from Java ({@link Slices}, the JDK's bulk
 * buffer transfer, and {@code Unsafe.copyMemory}: {@link HostCopy}). Prints GB/s (10^9 bytes per second) per method and thread
 * count, the median of several runs after two untimed ones; then the same while the device reads other pinned memory,
 * and the copies into write-combined pinned memory. Tells which copy to use and on how many threads, and how
 * far the host's copy alone is from the link's 55 GB/s.
 *
 * <p>Run on the GPU machine from a packed {@code .gpu/}: {@code bash .gpu/on-gpu.sh -cp
 * ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar" org.acc4j.runtime.transfer.HostCopyBench [MiB [threads]]}
 * (defaults 256 and 1,2,4,8,12,16).
 */
public final class HostCopyBench {
    private HostCopyBench() {
    }

    public static void main(String[] args) throws Exception {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 256;
        int[] threads = args.length > 1 ? Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 2, 4, 8, 12, 16};
        long bytes = mib << 20;
        Context context = Context.open(Device.all().get(0));
        try (PinnedBuffer pinned = PinnedBuffer.allocate(bytes, "the host copy benchmark")) {
            ByteBuffer slot = pinned.view();
            double[] a = new double[(int) (bytes / 8)];
            Arrays.parallelSetAll(a, i -> i * 0.5);
            double[] back = new double[a.length];
            System.out.printf(Locale.ROOT, "host copies of %d MiB between a double[] and pinned memory, %d cores%n",
                    mib, Runtime.getRuntime().availableProcessors());
            Harness.header(1, "method", "threads", "to pinned GB/s", "from pinned GB/s");
            for (HostCopy method : HostCopy.available()) {
                for (int t : threads) {
                    ExecutorService pool = Executors.newFixedThreadPool(t);
                    try {
                        double in = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.put(a, from, n, slot, from * 8)));
                        Arrays.fill(back, 0);
                        double out = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.get(slot, from * 8, back, from, n)));
                        if (!Arrays.equals(a, back)) {
                            throw new IllegalStateException(method + " did not bring the array back");
                        }
                        System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f |%n", method, t, in, out);
                    } finally {
                        pool.shutdown();
                    }
                }
            }
            underDma(context, bytes, slot, a, back, threads);
            writeCombined(context, bytes, a, threads);
        } finally {
            context.close();
        }
    }

    /**
     * The host's copies again while the device reads another pinned buffer by DMA without pause (as it does in a
     * staged copy to the device): how much the two share of the host's memory bandwidth. Prints the host's GB/s each
     * way and the DMA's GB/s meanwhile.
     */
    private static void underDma(Context context, long bytes, ByteBuffer slot, double[] a, double[] back, int[] threads)
            throws Exception {
        long dmaBytes = 64L << 20;
        try (PinnedBuffer source = PinnedBuffer.allocate(dmaBytes, "the DMA source");
             org.acc4j.runtime.cuda.DeviceBuffer device = org.acc4j.runtime.cuda.DeviceBuffer.allocate(dmaBytes,
                     "the DMA target")) {
            System.out.println();
            System.out.println("the same copies while the device reads 64 MiB of other pinned memory in a loop:");
            Harness.header(1, "method", "threads", "to pinned GB/s", "from pinned GB/s", "DMA GB/s meanwhile");
            for (HostCopy method : HostCopy.available()) {
                for (int t : threads) {
                    if (t < 4) {
                        continue;
                    }
                    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                    java.util.concurrent.atomic.AtomicLong moved = new java.util.concurrent.atomic.AtomicLong();
                    Thread dma = new Thread(() -> {
                        context.makeCurrent();
                        try (org.acc4j.runtime.cuda.Stream stream = org.acc4j.runtime.cuda.Stream.create("the DMA loop")) {
                            while (!stop.get()) {
                                device.copyFromPinnedAsync(0, source, dmaBytes, stream);
                                stream.synchronize("the DMA loop");
                                moved.addAndGet(dmaBytes);
                            }
                        }
                    });
                    ExecutorService pool = Executors.newFixedThreadPool(t);
                    try {
                        dma.start();
                        Thread.sleep(50);
                        long m0 = moved.get();
                        long t0 = System.nanoTime();
                        double in = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.put(a, from, n, slot, from * 8)));
                        double out = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.get(slot, from * 8, back, from, n)));
                        double dmaRate = (moved.get() - m0) / (double) (System.nanoTime() - t0);
                        System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f |%n", method, t, in, out,
                                dmaRate);
                    } finally {
                        stop.set(true);
                        dma.join();
                        pool.shutdown();
                    }
                }
            }
        }
    }

    /**
     * The copies into write-combined pinned memory ({@link PinnedBuffer#allocateWriteCombined}), alone and while the
     * device reads another write-combined buffer without pause: the host's half of a staged copy to the device in
     * write-combined slots. Only to the pinned memory: the host does not read write-combined memory.
     */
    private static void writeCombined(Context context, long bytes, double[] a, int[] threads) throws Exception {
        long dmaBytes = 64L << 20;
        try (PinnedBuffer combined = PinnedBuffer.allocateWriteCombined(bytes, "the write-combined copy target");
             PinnedBuffer source = PinnedBuffer.allocateWriteCombined(dmaBytes, "the write-combined DMA source");
             org.acc4j.runtime.cuda.DeviceBuffer device = org.acc4j.runtime.cuda.DeviceBuffer.allocate(dmaBytes,
                     "the DMA target")) {
            ByteBuffer slot = combined.view();
            System.out.println();
            System.out.println("copies into write-combined pinned memory, alone and while the device reads 64 MiB of"
                    + " other write-combined memory in a loop:");
            Harness.header(1, "method", "threads", "to write-combined GB/s", "under DMA GB/s", "DMA GB/s meanwhile");
            for (HostCopy method : HostCopy.available()) {
                for (int t : threads) {
                    ExecutorService pool = Executors.newFixedThreadPool(t);
                    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
                    java.util.concurrent.atomic.AtomicLong moved = new java.util.concurrent.atomic.AtomicLong();
                    Thread dma = new Thread(() -> {
                        context.makeCurrent();
                        try (org.acc4j.runtime.cuda.Stream stream = org.acc4j.runtime.cuda.Stream.create("the DMA loop")) {
                            while (!stop.get()) {
                                device.copyFromPinnedAsync(0, source, dmaBytes, stream);
                                stream.synchronize("the DMA loop");
                                moved.addAndGet(dmaBytes);
                            }
                        }
                    });
                    try {
                        double alone = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.put(a, from, n, slot, from * 8)));
                        dma.start();
                        Thread.sleep(50);
                        long m0 = moved.get();
                        long t0 = System.nanoTime();
                        double under = rate(bytes, () -> split(pool, t, a.length, (from, n) ->
                                method.put(a, from, n, slot, from * 8)));
                        double dmaRate = (moved.get() - m0) / (double) (System.nanoTime() - t0);
                        System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f |%n", method, t, alone, under,
                                dmaRate);
                    } finally {
                        stop.set(true);
                        if (dma.isAlive()) {
                            dma.join();
                        }
                        pool.shutdown();
                    }
                }
            }
        }
    }

    private interface Piece {
        void copy(int from, int n);
    }

    private static void split(ExecutorService pool, int t, int length, Piece piece) throws Exception {
        int per = (length + t - 1) / t;
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < t; i++) {
            int from = i * per;
            int n = Math.min(per, length - from);
            if (n > 0) {
                futures.add(pool.submit(() -> piece.copy(from, n)));
            }
        }
        for (Future<?> f : futures) {
            f.get();
        }
    }

    private static double rate(long bytes, Harness.Op<Exception> op) throws Exception {
        return bytes / (double) Harness.medianNanos(2, 7, null, op, null);
    }
}
