package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Staged copies on the GPU, every element checked: {@code Acc.copyin}, {@code updateHost}, {@code updateDevice} and
 * {@code copyout} at sizes around the default settings' threshold, chunks and slots, for int, long, float and double,
 * and a {@code double[]} beyond 2 GiB; the pipeline with tiny slots (hundreds of chunks) for every element type, and
 * with chunks that ramp up and down at lengths on every ramp step; concurrent callers. Each direction is checked on its own: what a staged copy put on the device is read back by a
 * plain {@code cuMemcpyDtoH}, and a staged copy to the host reads what a plain {@code cuMemcpyHtoD} wrote. Skips,
 * saying why, where there is no CUDA device.
 */
@Tag("gpu")
class TransferGpuTest {
    private static final int MIB = 1 << 20;
    private Context context;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        Acc.shutdown();
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        context = Context.open(Device.all().get(0));
    }

    @AfterEach
    void release() {
        if (context != null) {
            Acc.shutdown();
            context.close();
        }
    }

    @Test
    void accRoutinesMoveEveryElementAtTheBoundariesOfTheDefaultSettings() {
        Random r = new Random(11);
        for (Class<?> type : new Class<?>[] {int[].class, long[].class, float[].class, double[].class}) {
            int width = StagedCopyTest.width(type);
            TreeSet<Integer> lengths = new TreeSet<>(List.of(1, 2, 1000));
            for (long bytes : new long[] {Settings.DEFAULT.minBytes(), Settings.DEFAULT.minChunkBytes(),
                    Settings.DEFAULT.slotBytes(), Settings.DEFAULT.slotBytes() * Settings.DEFAULT.slots(),
                    Settings.DEFAULT.slotBytes() * (Settings.DEFAULT.slots() + 1) + 3 * width}) {
                int n = (int) (bytes / width);
                lengths.addAll(List.of(n - 1, n, n + 1));
            }
            lengths.add(64 * MIB / width + 7);
            for (int n : lengths) {
                roundTrip(type, n, r);
            }
        }
    }

    @Test
    void aDoubleArrayBeyondTwoGibibytes() {
        int n = (1 << 28) + 5;
        double[] a = new double[n];
        IntStream.range(0, n).parallel().forEach(i -> a[i] = i * 0.5 - 7);
        Acc.copyin(a);
        double[] seen = (double[]) read(a);
        int wrong = IntStream.range(0, n).parallel().filter(i -> seen[i] != i * 0.5 - 7).findFirst().orElse(-1);
        assertEquals(-1, wrong, "the staged copy to the device put every element in place");
        IntStream.range(0, n).parallel().forEach(i -> seen[i] = -i);
        write(a, seen);
        Acc.updateHost(a);
        wrong = IntStream.range(0, n).parallel().filter(i -> a[i] != -i).findFirst().orElse(-1);
        assertEquals(-1, wrong, "the staged copy to the host put every element in place");
        Acc.delete(a);
    }

    /** Copy in, update the host, update the device, copy out: each checked against plain copies of JCuda. */
    private void roundTrip(Class<?> type, int n, Random r) {
        String what = type.getSimpleName() + " of " + n;
        Object a = StagedCopyTest.random(type, n, r);
        Acc.copyin(a);
        assertArrayEquals(StagedCopyTest.bytesOf(a), StagedCopyTest.bytesOf(read(a)), what + ": copyin");
        Object b = StagedCopyTest.random(type, n, r);
        write(a, b);
        Acc.updateHost(a);
        assertArrayEquals(StagedCopyTest.bytesOf(b), StagedCopyTest.bytesOf(a), what + ": updateHost");
        System.arraycopy(StagedCopyTest.random(type, n, r), 0, a, 0, n);
        Acc.updateDevice(a);
        assertArrayEquals(StagedCopyTest.bytesOf(a), StagedCopyTest.bytesOf(read(a)), what + ": updateDevice");
        Object d = StagedCopyTest.random(type, n, r);
        write(a, d);
        Acc.copyout(a);
        assertArrayEquals(StagedCopyTest.bytesOf(d), StagedCopyTest.bytesOf(a), what + ": copyout");
        assertFalse(Acc.isPresent(a));
    }

    @Test
    void tinySlotsCutCopiesIntoHundredsOfChunksForEveryType() {
        context.makeCurrent();
        CudaMemory memory = new CudaMemory(new Settings(0, 4096, 3, 2, 1024, 4, 256));
        Random r = new Random(5);
        int copies = 0;
        for (Class<?> type : new Class<?>[] {byte[].class, short[].class, char[].class, int[].class, long[].class,
                float[].class, double[].class}) {
            int perSlot = 4096 / StagedCopyTest.width(type);
            for (int n : new int[] {1, 3, perSlot - 1, perSlot, perSlot + 1, 3 * perSlot - 1, 3 * perSlot + 1,
                    100 * perSlot + 17}) {
                String what = type.getSimpleName() + " of " + n;
                copies += bothWays(memory, type, n, r, what + " to the device", what + " to the host", null);
            }
        }
        assertEquals(copies, memory.staging().staged());
        assertEquals(1, memory.staging().lanes());
        memory.close();
        assertEquals(0, memory.staging().lanes());
    }

    @Test
    void writeCombinedSlotsMoveEveryElementToTheDeviceAndCachedOnesBack() {
        context.makeCurrent();
        Random r = new Random(91);
        for (int threads : new int[] {1, 4, 16}) {
            // slots of 64 KiB, chunks of 8 KiB at least, ramping from 1000 bytes: the write-combined slots at every
            // chunk and piece boundary; with 4 threads (16 to the device) the caller leaves the pieces to the helpers
            // and the chunks up to 8 KiB are written back from the caches, with 16 every piece (where the JVM lets it)
            Settings s = new Settings(0, 64 << 10, 3, 1, 8 << 10, 8, 256, Settings.ROWS_MIN_BYTES, threads,
                    HostCopy.BUFFER, true, 1000, Crew.SPIN_MICROS, 0).withWriteCombined(true)
                    .withCallerCopies(threads != 4).withWriteBack(threads == 16)
                    .withInThreads(threads == 4 ? 16 : 0)
                    .withFlushBytes(threads == 4 ? 8 << 10 : threads == 16 ? Long.MAX_VALUE : 0);
            CudaMemory memory = new CudaMemory(s);
            try {
                int copies = 0;
                for (Class<?> type : new Class<?>[] {byte[].class, short[].class, char[].class, int[].class,
                        long[].class, float[].class, double[].class}) {
                    int width = StagedCopyTest.width(type);
                    for (int n : new int[] {1, 999 / width, (8 << 10) / width + 1, (64 << 10) / width - 1,
                            (64 << 10) / width, 3 * (64 << 10) / width + 1, (5 << 20) / width + 13}) {
                        String what = "write-combined, " + threads + " threads, " + type.getSimpleName() + " of " + n;
                        // again through the same slots, with other values: nothing of the last copy is sent
                        copies += bothWays(memory, type, n, r, what, what + " back", what + " again");
                    }
                }
                assertEquals(0, memory.staging().declined(), "every copy staged");
                assertEquals(copies, memory.staging().staged());
                assertEquals(1, memory.staging().writeCombinedLanes(), "copies to the device in write-combined slots");
                assertEquals(2, memory.staging().lanes(), "and copies to the host in cached ones");
            } finally {
                memory.close();
            }
            assertEquals(0, memory.staging().lanes());
        }
    }

    @Test
    void aWriteCombinedPinnedBufferIsNeverReadByTheHost() {
        context.makeCurrent();
        try (org.acc4j.runtime.cuda.PinnedBuffer wc = org.acc4j.runtime.cuda.PinnedBuffer.allocateWriteCombined(
                1 << 20, "a write-combined test buffer")) {
            assertTrue(wc.writeCombined());
            int[] a = IntStream.range(0, 1000).toArray();
            assertEquals(4000, wc.stage(a));
            assertThrows(IllegalStateException.class, () -> wc.unstage(new int[1000]));
            assertThrows(IllegalStateException.class, () -> wc.readLongs(new long[4], 4));
        }
        try (CudaLane lane = CudaLane.openWriteCombined(4096, 2)) {
            org.acc4j.runtime.cuda.DeviceBuffer d = org.acc4j.runtime.cuda.DeviceBuffer.allocate(4096, "test");
            try {
                assertThrows(IllegalStateException.class, () -> lane.toHost(d, 0, 0, 4096));
            } finally {
                d.close();
            }
        }
    }

    @Test
    void everyHostCopyWayAndThreadCountMovesEveryElement() {
        context.makeCurrent();
        Random r = new Random(77);
        for (HostCopy how : HostCopy.available()) {
            for (int threads : new int[] {1, 4, 0}) {
                Settings s = new Settings(0, 64 << 10, 3, 1, 8 << 10, 4, 1 << 10).withCopy(how).withThreads(threads);
                everyTypeAndLength(s, new Class<?>[] {byte[].class, char[].class, int[].class, double[].class},
                        width -> new int[] {1, (8 << 10) / width + 1, (64 << 10) / width - 1, (3 << 20) / width + 5},
                        r, how + ", " + threads + " threads, ", how + " staged every copy");
            }
        }
    }

    @Test
    void chunksOfTheirOwnSizePerDirectionMoveEveryElement() {
        context.makeCurrent();
        Random r = new Random(83);
        for (int threads : new int[] {1, 5, 16}) {
            // slots of 64 KiB; to the device chunks of 8 KiB, each written back from the caches; to the host 24 KiB
            Settings s = new Settings(0, 64 << 10, 3, 1, 8 << 10, 8, 256, Settings.ROWS_MIN_BYTES, threads,
                    HostCopy.BUFFER, true, 1000, Crew.SPIN_MICROS, 0).withDirectionChunks(8 << 10, 24 << 10)
                    .withWriteBack(true).withInThreads(threads);
            everyTypeAndLength(s, new Class<?>[] {byte[].class, short[].class, float[].class, double[].class},
                    width -> new int[] {1, 7, (8 << 10) / width - 1, (8 << 10) / width + 1, (24 << 10) / width,
                        (24 << 10) / width + 1, (3 << 20) / width + 13},
                    r, threads + " threads, ", "every copy staged");
        }
    }

    @Test
    void rampedCopiesMoveEveryElementAtEveryRampStep() {
        context.makeCurrent();
        Random r = new Random(81);
        for (int threads : new int[] {1, 5, 16}) {
            // slots of 64 KiB, middle chunks of 8 KiB at least, a ramp from 1000 bytes (not a multiple of a width)
            Settings s = new Settings(0, 64 << 10, 3, 1, 8 << 10, 8, 256, Settings.ROWS_MIN_BYTES, threads,
                    HostCopy.BUFFER, true, 1000, Crew.SPIN_MICROS, 0);
            everyTypeAndLength(s, new Class<?>[] {byte[].class, short[].class, float[].class, double[].class},
                    TransferGpuTest::rampLengths, r, threads + " threads, ", "every copy staged");
        }
    }

    /** Lengths of elements {@code width} bytes wide on each side of every step of a ramp from 1000 bytes. */
    private static int[] rampLengths(int width) {
        TreeSet<Integer> lengths = new TreeSet<>(List.of(1, 7, 125, 3 * (1 << 20) / width + 13));
        long step = 1000 / width;
        for (int k = 1; k <= 4; k++) {
            long up = step * ((1L << k) - 1);
            for (long base : new long[] {2 * up, 2 * up + (8 << 10) / width, 2 * up + (64 << 10) / width}) {
                lengths.add((int) base - 1);
                lengths.add((int) base);
                lengths.add((int) base + 1);
            }
        }
        return lengths.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * {@link #bothWays} through memory staged with {@code s}, for each of {@code types} at each of its lengths
     * ({@code lengths} of the element width); then no copy declined ({@code staged} says so).
     */
    private static void everyTypeAndLength(Settings s, Class<?>[] types, java.util.function.IntFunction<int[]> lengths,
                                           Random r, String what, String staged) {
        CudaMemory memory = new CudaMemory(s);
        try {
            for (Class<?> type : types) {
                for (int n : lengths.apply(StagedCopyTest.width(type))) {
                    String copy = what + type.getSimpleName() + " of " + n;
                    bothWays(memory, type, n, r, copy, copy + " back", null);
                }
            }
            assertEquals(0, memory.staging().declined(), staged);
        } finally {
            memory.close();
        }
    }

    @Test
    void aFreedArraysDeviceMemoryServesTheNextArrayOfItsSizeWithThatArraysValues() {
        context.makeCurrent();
        CudaMemory memory = new CudaMemory();
        Random r = new Random(19);
        double[] a = (double[]) StagedCopyTest.random(double[].class, MIB / 8 + 3, r);
        CudaMemory.CudaBuffer first = memory.allocate(a);
        first.upload(a);
        long address = first.address();
        first.close();
        assertEquals(8L * a.length, memory.spareBytes(), "kept for the next array of its size");
        double[] b = (double[]) StagedCopyTest.random(double[].class, a.length, r);
        CudaMemory.CudaBuffer second = memory.allocate(b);
        assertEquals(0L, memory.spareBytes(), "taken back");
        assertEquals(address, second.address());
        second.upload(b);
        double[] seen = new double[b.length];
        second.deviceBuffer().copyToHost(seen);
        assertArrayEquals(b, seen);
        second.close();
        CudaMemory.CudaBuffer large = memory.allocate(new double[(96 << 20) / 8]);
        large.close();
        assertEquals(8L * a.length, memory.spareBytes(), "an array's buffer beyond 64 MiB is freed at once");
        memory.close();
        assertEquals(0L, memory.spareBytes(), "freed with the memory");
        assertEquals(0L, memory.bytesInUse());
    }

    @Test
    void concurrentCallersEachMoveTheirOwnArrays() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Random r = new Random(200 + t);
            done.add(threads.submit(() -> {
                for (int i = 0; i < 6; i++) {
                    int n = 3 * MIB + r.nextInt(MIB);
                    double[] a = (double[]) StagedCopyTest.random(double[].class, n, r);
                    double[] keep = a.clone();
                    Acc.copyin(a);
                    java.util.Arrays.fill(a, 0);
                    Acc.updateHost(a);
                    assertArrayEquals(StagedCopyTest.bytesOf(keep), StagedCopyTest.bytesOf(a));
                    for (int j = 0; j < n; j++) {
                        a[j] = j;
                    }
                    Acc.updateDevice(a);
                    java.util.Arrays.fill(a, -1);
                    Acc.copyout(a);
                    for (int j = 0; j < n; j++) {
                        assertEquals(j, a[j]);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        threads.shutdown();
        assertTrue(threads.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES));
    }

    /**
     * A staged copy of a random {@code type} array of length {@code n} to the device, checked against what a plain
     * copy reads back ({@code toDevice} names it), and a staged copy to the host of what a plain copy wrote
     * ({@code toHost}); with {@code again}, a second staged copy of other values to the device through the same
     * buffer. The number of staged copies made.
     */
    private static int bothWays(CudaMemory memory, Class<?> type, int n, Random r, String toDevice, String toHost,
                                String again) {
        Object a = StagedCopyTest.random(type, n, r);
        CudaMemory.CudaBuffer buffer = memory.allocate(a);
        try {
            buffer.upload(a);
            Object direct = Array.newInstance(type.getComponentType(), n);
            buffer.deviceBuffer().copyToHost(direct);
            assertArrayEquals(StagedCopyTest.bytesOf(a), StagedCopyTest.bytesOf(direct), toDevice);
            Object b = StagedCopyTest.random(type, n, r);
            buffer.deviceBuffer().copyFromHost(b);
            buffer.download(a);
            assertArrayEquals(StagedCopyTest.bytesOf(b), StagedCopyTest.bytesOf(a), toHost);
            if (again == null) {
                return 2;
            }
            Object c = StagedCopyTest.random(type, n, r);
            buffer.upload(c);
            buffer.deviceBuffer().copyToHost(direct);
            assertArrayEquals(StagedCopyTest.bytesOf(c), StagedCopyTest.bytesOf(direct), again);
            return 3;
        } finally {
            buffer.close();
        }
    }

    /** The device copy of a present array, read by a plain {@code cuMemcpyDtoH} into a new array. */
    private Object read(Object array) {
        context.makeCurrent();
        Object out = Array.newInstance(array.getClass().getComponentType(), Array.getLength(array));
        long bytes = (long) Array.getLength(array) * StagedCopyTest.width(array.getClass());
        assertEquals(0, JCudaDriver.cuMemcpyDtoH(to(out), device(array), bytes));
        return out;
    }

    /** Overwrites the device copy of a present array with {@code values} by a plain {@code cuMemcpyHtoD}. */
    private void write(Object array, Object values) {
        context.makeCurrent();
        long bytes = (long) Array.getLength(array) * StagedCopyTest.width(array.getClass());
        assertEquals(0, JCudaDriver.cuMemcpyHtoD(device(array), to(values), bytes));
    }

    private static CUdeviceptr device(Object array) {
        return new CUdeviceptr().withByteOffset(Acc.deviceptr(array));
    }

    private static Pointer to(Object array) {
        if (array instanceof double[] a) {
            return Pointer.to(a);
        } else if (array instanceof long[] a) {
            return Pointer.to(a);
        } else if (array instanceof float[] a) {
            return Pointer.to(a);
        } else if (array instanceof int[] a) {
            return Pointer.to(a);
        } else if (array instanceof short[] a) {
            return Pointer.to(a);
        } else if (array instanceof char[] a) {
            return Pointer.to(a);
        }
        return Pointer.to((byte[]) array);
    }
}
