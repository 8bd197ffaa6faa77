package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * The staged-copy pipeline against {@link FakeLanes}, which checks the rules of {@link Lane} as it goes: every element
 * type at sizes around every chunk and slot boundary, checked on the device side and the host side separately (a
 * round trip alone would not see two mistakes that cancel), the cutting of arrays up to {@code Integer.MAX_VALUE}
 * elements, an array beyond 2 GiB, failures at every copy of a pipeline, pinning refused, concurrent callers, and
 * the pool's lifecycle.
 */
class StagedCopyTest {
    /** Slots of 64 bytes, 3 per lane, 2 lanes; chunks of 16 to 64 bytes, pieces of a chunk from 8 bytes. */
    private static final Settings SMALL = new Settings(0, 64, 3, 2, 16, 4, 8);
    private static final Class<?>[] TYPES = {byte[].class, short[].class, char[].class, int[].class, long[].class,
            float[].class, double[].class};

    @Test
    void everyTypeAndLengthArrivesOnTheDeviceAndBack() {
        FakeLanes lanes = new FakeLanes();
        lanes.delayMicros = 20;
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        Random r = new Random(42);
        int copies = 0;
        for (Class<?> type : TYPES) {
            for (int length : lengths(width(type))) {
                Object array = random(type, length, r);
                byte[] expected = bytesOf(array);
                FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
                assertTrue(staged.toDevice(array, device));
                assertArrayEquals(expected, device.data.array(), () -> type.getSimpleName() + " of " + length);
                assertEquals(expected.length, device.written.get());

                // other bytes on the device, read back into a fresh array
                byte[] other = new byte[expected.length];
                r.nextBytes(other);
                device.data.put(0, other);
                Object back = Array.newInstance(type.getComponentType(), length);
                assertTrue(staged.toHost(device, back));
                assertArrayEquals(other, bytesOf(back), () -> type.getSimpleName() + " of " + length + " back");
                copies += 2;
            }
        }
        assertEquals(List.of(), lanes.violations);
        assertEquals(copies, staged.staged());
        assertEquals(1, lanes.opened.size(), "one caller reuses one lane");
        staged.close();
        assertEquals(0, lanes.open());
    }

    /** 1 to 40 elements, then one either side of every multiple of a slot up to 13, and two longer arrays. */
    private static TreeSet<Integer> lengths(int width) {
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int n = 1; n <= 40; n++) {
            lengths.add(n);
        }
        int perSlot = (int) SMALL.slotBytes() / width;
        for (int k = 1; k <= 13; k++) {
            for (int d = -1; d <= 1; d++) {
                lengths.add(k * perSlot + d);
            }
        }
        lengths.add(1009);
        lengths.add(4097);
        return lengths;
    }

    @Test
    void stagingThreadsOfItsOwnCopyEveryElement() {
        Random r = new Random(31);
        for (int threads : new int[] {1, 2, 5}) {
            Settings s = new Settings(0, 4096, 3, 1, 512, 4, 64);
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s, new FakeLanes(), threads)) {
                for (Class<?> type : TYPES) {
                    for (int length : new int[] {1, 63, 64, 65, 511, 512, 513, 4095, 4097, 40_000 + r.nextInt(100)}) {
                        bothWays(staged, random(type, length, r), null,
                                () -> threads + " threads, " + type.getSimpleName() + " of " + length,
                                () -> threads + " threads, back: " + type.getSimpleName() + " of " + length);
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new StagedCopy<>(Settings.DEFAULT, new FakeLanes(), -1));
    }

    @Test
    void chunksOfTheirOwnSizePerDirectionCarryEveryElement() {
        Random r = new Random(37);
        // copies to the device in chunks of 1 KiB, to the host in chunks of 3 KiB, whatever the array's size
        Settings s = new Settings(0, 4096, 3, 1, 512, 4, 64).withDirectionChunks(1024, 3072);
        for (int threads : new int[] {1, 3}) {
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s.withThreads(threads), new FakeLanes(), threads)) {
                assertEquals(128, staged.plan(8, 100_000, true).chunkElements());
                assertEquals(384, staged.plan(8, 100_000, false).chunkElements());
                // to the device in at least 8 chunks (no fixed size): 100_000 doubles in chunks of a slot; 1000 in 125
                Settings counted = s.withDirectionChunks(0, 3072).withDirections(8, 0);
                StagedCopy<FakeDevice> c = new StagedCopy<>(counted, new FakeLanes());
                assertEquals(512, c.plan(8, 100_000, true).chunkElements());
                assertEquals(125, c.plan(8, 1000, true).chunkElements());
                // to the host with no ramp (these settings have none either way): chunks of one size from the first
                assertEquals(384, c.plan(8, 100_000, false).count(0));
                // without: 4 chunks per copy, 8000 bytes in chunks of 2000
                assertEquals(250, new StagedCopy<>(s.withDirectionChunks(0, 0), new FakeLanes()).plan(8, 1000, true)
                        .chunkElements());
                for (Class<?> type : TYPES) {
                    for (int length : new int[] {1, 127, 128, 129, 1023, 1024, 1025, 3071, 3073, 50_000 + r.nextInt(99)}) {
                        bothWays(staged, random(type, length, r), null,
                                () -> threads + " threads, " + type.getSimpleName() + " of " + length,
                                () -> threads + " threads, back: " + type.getSimpleName() + " of " + length);
                    }
                }
            }
        }
    }

    @Test
    void everyHostCopyWayCopiesEveryTypeAtEveryOffset() {
        Random r = new Random(57);
        for (HostCopy how : new HostCopy[] {HostCopy.BUFFER, HostCopy.UNSAFE}) {
            for (int threads : new int[] {1, 3, 6}) {
                Settings s = new Settings(0, 4096, 3, 1, 512, 4, 64).withCopy(how).withThreads(threads)
                        .withPipelined(threads != 6);
                try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s, new FakeLanes())) {
                    for (Class<?> type : TYPES) {
                        for (int length : new int[] {1, 7, 511, 512, 513, 4097, 20_000 + r.nextInt(100)}) {
                            bothWays(staged, random(type, length, r), r,
                                    () -> how + ", " + threads + " threads, " + type.getSimpleName() + " of " + length,
                                    () -> how + ", back: " + type.getSimpleName() + " of " + length);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aClosedCopierStartsItsThreadsAndLanesAgainOnItsNextCopy() {
        Random r = new Random(61);
        FakeLanes lanes = new FakeLanes();
        Settings s = new Settings(0, 4096, 3, 1, 512, 4, 64).withThreads(4);
        StagedCopy<FakeDevice> staged = new StagedCopy<>(s, lanes);
        for (int round = 0; round < 3; round++) {
            for (boolean pipelined : new boolean[] {true, false}) {
                StagedCopy<FakeDevice> copier = pipelined ? staged : new StagedCopy<>(s.withPipelined(false), lanes);
                long[] a = (long[]) random(long[].class, 5000 + round, r);
                FakeDevice.Bytes device = FakeDevice.bytes(8 * a.length);
                assertTrue(copier.toDevice(a, device));
                assertArrayEquals(bytesOf(a), device.data.array());
                long[] back = new long[a.length];
                assertTrue(copier.toHost(device, back));
                assertArrayEquals(a, back);
                copier.close();
            }
        }
        assertEquals(List.of(), lanes.violations);
        assertEquals(0, lanes.open());
    }

    @Test
    void rawHostCopiesCheckBothRanges() {
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        double[] a = new double[4];
        assertThrows(IndexOutOfBoundsException.class, () -> HostCopy.UNSAFE.put(a, 1, 4, memory, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> HostCopy.UNSAFE.put(a, 0, 4, memory, 40));
        assertThrows(IndexOutOfBoundsException.class, () -> HostCopy.UNSAFE.get(memory, -8, a, 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> HostCopy.UNSAFE.put(a, 0, 1, ByteBuffer.allocate(64), 0));
        a[3] = 2.5;
        HostCopy.UNSAFE.put(a, 3, 1, memory, 56);
        assertEquals(2.5, memory.order(ByteOrder.nativeOrder()).getDouble(56));
    }

    @Test
    void stagingSettingsParseFromTheirSpecAndNameWhatIsWrong() {
        Settings s = Settings.parse("slot=16m, slots=4,threads=8,copy=unsafe,min=512k,rows=2m,chunk=1m,chunks=8,"
                + "piece=64k,lanes=3,pipelined=false,ramp=32k,spin=300,poll=5", Settings.DEFAULT);
        assertEquals(new Settings(512 << 10, 16 << 20, 4, 3, 1 << 20, 8, 64 << 10, 2 << 20, 8, HostCopy.UNSAFE, false,
                32 << 10, 300, 5).withFlushBytes(Settings.DEFAULT.flushBytes())
                .withInThreads(Settings.DEFAULT.inThreads())
                .withDirectionChunks(Settings.DEFAULT.inChunkBytes(), Settings.DEFAULT.outChunkBytes())
                .withDirections(Settings.DEFAULT.inChunks(), 32 << 10), s);
        assertFalse(s.writeCombined());
        assertEquals(64 << 20, s.wideBytes());
        Settings wc = Settings.parse("wc=true,wide=128m", s);
        assertEquals(s.withWriteCombined(true).withThreads(8), wc.withWideBytes(64 << 20));
        assertEquals(128 << 20, wc.wideBytes());
        assertTrue(wc.writeCombined());
        assertFalse(Settings.parse("wc=false", wc).writeCombined());
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("wc=yes", Settings.DEFAULT));
        assertTrue(Settings.DEFAULT.callerCopies());
        assertEquals(Settings.DEFAULT.withCallerCopies(false), Settings.parse("caller=false", Settings.DEFAULT));
        assertTrue(Settings.DEFAULT.interleave());
        assertEquals(Long.MAX_VALUE, Settings.parse("flush=true", Settings.DEFAULT).flushBytes());
        assertEquals(2 << 20, Settings.parse("flush=2m,inthreads=16", Settings.DEFAULT).flushBytes());
        Settings chunks = Settings.parse("inchunk=512k,outchunk=4m", Settings.DEFAULT);
        assertEquals(512 << 10, chunks.inChunkBytes());
        assertEquals(4 << 20, chunks.outChunkBytes());
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("inchunk=100", Settings.DEFAULT));
        Settings directions = Settings.parse("ramp=128k,inchunks=16,outramp=0", Settings.DEFAULT);
        assertEquals(16, directions.inChunks());
        assertEquals(128 << 10, directions.rampBytes());
        assertEquals(0, directions.outRampBytes());
        assertEquals(256 << 10, Settings.parse("ramp=256k", directions).outRampBytes(), "ramp sets both");
        assertEquals(16, Settings.parse("flush=2m,inthreads=16", Settings.DEFAULT).inThreads());
        assertEquals(0, Settings.parse("flush=false", Settings.DEFAULT).flushBytes());
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("inthreads=-2", Settings.DEFAULT));
        assertEquals(Settings.DEFAULT.withInterleave(false), Settings.parse("interleave=false", Settings.DEFAULT));
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("wide=-1", Settings.DEFAULT));
        assertEquals(Settings.DEFAULT, Settings.parse("", Settings.DEFAULT));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.parse("slot=16m,slotz=3", Settings.DEFAULT));
        assertTrue(e.getMessage().contains("'slotz=3'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("copy=memcpy", Settings.DEFAULT));
        assertThrows(IllegalArgumentException.class, () -> Settings.parse("slot=12", Settings.DEFAULT));
    }

    @Test
    void writeCombinedSlotsCarryEveryCopyToTheDeviceAndNoneBack() {
        Random r = new Random(61);
        for (int threads : new int[] {1, 3, 6}) {
            Settings s = new Settings(0, 4096, 3, 2, 512, 4, 64).withThreads(threads).withWriteCombined(true)
                    .withCallerCopies(threads != 6);
            FakeLanes cached = new FakeLanes();
            FakeLanes wc = new FakeLanes(true);
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s, cached, wc)) {
                int copies = 0;
                for (Class<?> type : TYPES) {
                    for (int length : new int[] {1, 63, 511, 512, 513, 1023, 4097, 40_000 + r.nextInt(100)}) {
                        String what = threads + " threads, " + type.getSimpleName() + " of " + length;
                        Object array = random(type, length, r);
                        byte[] expected = bytesOf(array);
                        FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
                        assertTrue(staged.toDevice(array, device));
                        assertArrayEquals(expected, device.data.array(), what);
                        byte[] other = new byte[expected.length];
                        r.nextBytes(other);
                        device.data.put(0, other);
                        Object back = Array.newInstance(type.getComponentType(), length);
                        assertTrue(staged.toHost(device, back));
                        assertArrayEquals(other, bytesOf(back), what + " back");
                        copies++;
                    }
                }
                assertEquals(List.of(), cached.violations);
                assertEquals(List.of(), wc.violations);
                assertEquals(1, wc.opened.size(), "copies to the device reuse one write-combined lane");
                assertEquals(1, cached.opened.size(), "copies to the host reuse one cached lane");
                assertEquals(2, staged.lanes());
                assertEquals(1, staged.writeCombinedLanes());
                assertEquals(2 * copies, staged.staged());
            }
            assertEquals(0, cached.open());
            assertEquals(0, wc.open());
        }
    }

    @Test
    void writeCombinedLanesAreOpenedOnlyWhereTheSettingsAskAndPinningThemMayFailAlone() {
        double[] a = new double[1000];
        Arrays.setAll(a, i -> i * 0.5);
        Settings plain = new Settings(0, 4096, 3, 1, 512, 4, 64);
        FakeLanes cached = new FakeLanes();
        FakeLanes wc = new FakeLanes(true);
        try (StagedCopy<FakeDevice> staged = new StagedCopy<>(plain, cached, wc)) {
            FakeDevice.Bytes device = FakeDevice.bytes(8000);
            assertTrue(staged.toDevice(a, device));
            assertTrue(staged.toHost(device, new double[1000]));
            assertEquals(0, wc.opened.size(), "cached slots unless the settings ask for write-combined ones");
            assertEquals(1, cached.opened.size());
        }
        // no maker of write-combined lanes: both directions share the cached ones
        FakeLanes only = new FakeLanes();
        try (StagedCopy<FakeDevice> staged = new StagedCopy<>(plain.withWriteCombined(true), only)) {
            FakeDevice.Bytes device = FakeDevice.bytes(8000);
            assertTrue(staged.toDevice(a, device));
            double[] back = new double[1000];
            assertTrue(staged.toHost(device, back));
            assertArrayEquals(a, back);
            assertEquals(1, only.opened.size());
            assertEquals(0, staged.writeCombinedLanes());
        }
        // the host refuses to pin write-combined memory: copies to the device go direct, those to the host stay staged
        FakeLanes refusing = new FakeLanes(true);
        refusing.refuse = true;
        FakeLanes kept = new FakeLanes();
        try (StagedCopy<FakeDevice> staged = new StagedCopy<>(plain.withWriteCombined(true), kept, refusing)) {
            FakeDevice.Bytes device = FakeDevice.bytes(8000);
            assertFalse(staged.toDevice(a, device));
            assertEquals(1, staged.declined());
            device.data.asDoubleBuffer().put(a);
            double[] back = new double[1000];
            assertTrue(staged.toHost(device, back));
            assertArrayEquals(a, back);
            assertEquals(List.of(), kept.violations);
        }
    }

    @Test
    void arraysAreCutIntoChunksOfTheSettingsWithLongOffsets() {
        StagedCopy<FakeDevice> staged = new StagedCopy<>(Settings.DEFAULT, new FakeLanes());
        long mib = 1 << 20;
        // to the device, 8 MiB of doubles: middle chunks of 512 KiB (a 32nd is less than the least chunk), ramping 64,
        // 128, 256 KiB at each end (21 chunks); 1 GiB: chunks of a whole slot (8 MiB), ramping from 64 KiB to 4 MiB
        // (141 chunks); 512 KiB: chunks of the least, 512 KiB, ramping 64 and 128 KiB (5 chunks); 2 MiB: 64, 128,
        // 256 KiB, then 512, 512, 128 KiB (9 chunks)
        assertEquals(mib / 16, staged.plan(8, (int) (mib), true).chunkElements());
        assertEquals(8192, staged.plan(8, (int) (mib), true).count(0));
        assertEquals(21, staged.plan(8, (int) (mib), true).chunks());
        assertEquals(141, staged.plan(8, (int) (128 * mib), true).chunks());
        assertEquals(5, staged.plan(8, (int) (mib / 16), true).chunks());
        assertEquals(9, staged.plan(8, (int) (mib / 4), true).chunks());
        // to the host, 8 MiB: 8 chunks of 1 MiB, with no ramp
        assertEquals(mib / 8, staged.plan(8, (int) (mib)).count(0));
        assertEquals(8, staged.plan(8, (int) (mib)).chunks());
        for (int width : new int[] {1, 2, 4, 8}) {
            for (int length : new int[] {1, 7, (int) mib + 1, Integer.MAX_VALUE - 8, Integer.MAX_VALUE}) {
                Plan p = staged.plan(width, length);
                long covered = 0;
                for (long c = 0; c < p.chunks(); c++) {
                    assertEquals(covered, p.first(c), "chunks follow each other");
                    assertTrue(p.count(c) > 0 && (long) p.count(c) * width <= Settings.DEFAULT.slotBytes());
                    covered += p.count(c);
                }
                assertEquals(length, covered, () -> "chunks cover " + width + " x " + length);
                assertTrue(p.pieceElements() > 0 && p.pieceElements() <= p.chunkElements());
            }
        }
    }

    @Test
    void smallArraysAndEmptyOnesAreLeftToTheDirectPath() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(new Settings(100, 64, 3, 2, 16, 4, 8), lanes);
        FakeDevice.Bytes device = FakeDevice.bytes(100);
        assertFalse(staged.toDevice(new byte[99], device));
        assertFalse(staged.toHost(device, new int[0]));
        assertEquals(0, lanes.opened.size());
        assertEquals(0, staged.declined(), "below the threshold is not a declined copy");
        assertTrue(staged.toDevice(new byte[100], device));
        // a boolean[] is one byte per element on the device, 0 or 1: the direct path converts it
        assertFalse(staged.toDevice(new boolean[200], device));
        assertThrows(IllegalArgumentException.class, () -> staged.toDevice(new Object[200], device));
        assertThrows(IllegalArgumentException.class, () -> new Settings(0, 60, 3, 2, 16, 4, 8));
        assertThrows(IllegalArgumentException.class, () -> new Settings(0, 64, 0, 2, 16, 4, 8));
        assertThrows(IllegalArgumentException.class, () -> new Settings(0, 64, 3, 2, 128, 4, 8));
    }

    @Test
    void aFailedCopyThrowsAfterWaitingAndFreesItsLane() {
        Random r = new Random(7);
        // 40 doubles are 320 bytes: chunks of 80 bytes cut to 64, so 5 copies through 3 slots each way
        for (boolean in : new boolean[] {true, false}) {
            for (boolean whenQueued : new boolean[] {true, false}) {
                for (int k = 1; k <= 5; k++) {
                    FakeLanes lanes = new FakeLanes();
                    StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL.withInterleave(k % 2 == 0), lanes);
                    double[] array = (double[]) random(double[].class, 40, r);
                    FakeDevice.Bytes device = FakeDevice.bytes(320);
                    if (whenQueued) {
                        lanes.refuseCopy = k;
                    } else {
                        lanes.failCopy = k;
                    }
                    int failing = k;
                    IllegalStateException e = assertThrows(IllegalStateException.class,
                            () -> copy(staged, in, array, device));
                    assertTrue(e.getMessage().startsWith("copy " + failing + " "), e::getMessage);
                    FakeLanes.Lane lane = lanes.opened.get(0);
                    assertTrue(lane.closed && !lane.abandoned, "the failed lane is drained and freed, not reused");
                    assertEquals(0, staged.lanes());
                    assertEquals(0, staged.staged());
                    // nothing is queued after a refusal; after a failure on the device, at most until it is seen
                    int queued = lanes.copies.get();
                    if (whenQueued) {
                        assertEquals(failing, queued);
                    } else {
                        assertTrue(queued >= failing && queued <= Math.min(5, failing + SMALL.slots() - 1), "" + queued);
                    }

                    // the next copy takes a fresh lane and is whole
                    lanes.refuseCopy = 0;
                    lanes.failCopy = 0;
                    double[] back = new double[40];
                    assertTrue(staged.toDevice(array, device));
                    assertTrue(staged.toHost(device, back));
                    assertArrayEquals(array, back);
                    assertEquals(2, lanes.opened.size());
                    assertEquals(List.of(), lanes.violations);
                }
            }
        }
    }

    private static void copy(StagedCopy<FakeDevice> staged, boolean in, Object array, FakeDevice device) {
        if (in) {
            staged.toDevice(array, device);
        } else {
            staged.toHost(device, array);
        }
    }

    @Test
    void whenTheHostRefusesToPinCopiesGoDirectUntilTheStagingStartsAfresh() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        FakeDevice.Bytes device = FakeDevice.bytes(800);
        lanes.refuse = true;
        assertFalse(staged.toDevice(new long[100], device));
        assertEquals(0, device.written.get(), "a declined copy does nothing");
        lanes.refuse = false;
        assertFalse(staged.toDevice(new long[100], device), "the refusal is remembered");
        assertEquals(2, staged.declined());
        staged.close();
        assertTrue(staged.toDevice(new long[100], device));
        assertEquals(1, staged.lanes());
    }

    @Test
    void closeFreesTheLanesAndAbandonForgetsThem() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        FakeDevice.Bytes device = FakeDevice.bytes(800);
        assertTrue(staged.toDevice(new long[100], device));
        staged.close();
        assertTrue(lanes.opened.get(0).closed && !lanes.opened.get(0).abandoned);
        assertEquals(0, staged.lanes());
        assertTrue(staged.toHost(device, new long[100]));
        staged.abandon();
        assertTrue(lanes.opened.get(1).abandoned);
        assertEquals(0, staged.lanes());

        // a lane taken before the context went and handed back after it is forgotten, never reused
        LanePool<FakeDevice> pool = new LanePool<>(lanes, 64, 3, 1);
        Lane<FakeDevice> taken = pool.take();
        assertSame(null, pool.take(), "the one lane is busy: the copy goes direct");
        pool.abandon();
        pool.give(taken);
        assertTrue(((FakeLanes.Lane) taken).abandoned);
        assertEquals(0, pool.lanes());
        Lane<FakeDevice> fresh = pool.take();
        assertFalse(fresh == taken);
        pool.give(fresh);
        assertSame(fresh, pool.take(), "a lane handed back whole is reused");
        assertEquals(List.of(), lanes.violations);
    }

    @Test
    void concurrentCallersEachGetAWholeCopyStagedOrDirect() throws Exception {
        FakeLanes lanes = new FakeLanes();
        lanes.delayMicros = 10;
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        ExecutorService threads = Executors.newFixedThreadPool(6);
        AtomicInteger direct = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            Random r = new Random(100 + t);
            done.add(threads.submit(() -> {
                for (int i = 0; i < 40; i++) {
                    Class<?> type = TYPES[r.nextInt(TYPES.length)];
                    Object array = random(type, 1 + r.nextInt(600), r);
                    byte[] expected = bytesOf(array);
                    FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
                    if (!staged.toDevice(array, device)) {
                        device.data.put(0, expected);
                        direct.incrementAndGet();
                    }
                    assertArrayEquals(expected, device.data.array());
                    Object back = Array.newInstance(type.getComponentType(), Array.getLength(array));
                    if (!staged.toHost(device, back)) {
                        back = array;
                        direct.incrementAndGet();
                    }
                    assertArrayEquals(expected, bytesOf(back));
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        threads.shutdown();
        assertEquals(List.of(), lanes.violations);
        assertTrue(lanes.opened.size() <= SMALL.lanes(), "never more lanes than the settings allow");
        assertEquals(6 * 40 * 2, staged.staged() + direct.get());
        assertEquals(direct.get(), staged.declined());
    }

    @Test
    void arraysBeyondTwoGibibytesUseLongOffsets() {
        long longs = (1L << 28) + 3;
        assumeTrue(Runtime.getRuntime().maxMemory() > (3L << 30), "needs a heap of 3 GiB for a 2 GiB array");
        FakeLanes lanes = new FakeLanes();
        lanes.delayMicros = 0;
        StagedCopy<FakeDevice> staged = new StagedCopy<>(Settings.DEFAULT, lanes);
        long[] array = new long[(int) longs];
        IntStream.range(0, array.length).parallel().forEach(i -> array[i] = FakeDevice.value(i));
        FakeDevice.Pattern device = FakeDevice.pattern(longs);
        assertTrue(staged.toDevice(array, device));
        assertEquals(-1, device.wrong.get(), "every element arrives where it belongs");
        assertEquals(8 * longs, device.written.get());
        assertEquals(8 * longs, device.end.get());

        java.util.Arrays.fill(array, 0);
        assertTrue(staged.toHost(device, array));
        int wrong = IntStream.range(0, array.length).parallel().filter(i -> array[i] != FakeDevice.value(i)).findFirst()
                .orElse(-1);
        assertEquals(-1, wrong, "every element comes back where it belongs");
        assertEquals(List.of(), lanes.violations);
        staged.close();
    }

    /**
     * Copies {@code array} to a fake device, checking every byte there ({@code what} names the copy), then back into
     * a new array of its type, checking every byte ({@code whatBack}); with {@code other}, the device's bytes are
     * first replaced by random ones from it, which must be what comes back.
     */
    private static void bothWays(StagedCopy<FakeDevice> staged, Object array, Random other,
                                 java.util.function.Supplier<String> what,
                                 java.util.function.Supplier<String> whatBack) {
        byte[] expected = bytesOf(array);
        FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
        assertTrue(staged.toDevice(array, device));
        assertArrayEquals(expected, device.data.array(), what);
        if (other != null) {
            expected = new byte[expected.length];
            other.nextBytes(expected);
            device.data.put(0, expected);
        }
        Object back = Array.newInstance(array.getClass().getComponentType(), Array.getLength(array));
        assertTrue(staged.toHost(device, back));
        assertArrayEquals(expected, bytesOf(back), whatBack);
    }

    static int width(Class<?> type) {
        return Slices.width(Array.newInstance(type.getComponentType(), 0));
    }

    /** Random bits in every element (NaNs among the floats included). */
    static Object random(Class<?> type, int n, Random r) {
        byte[] bits = new byte[n * width(type)];
        r.nextBytes(bits);
        return decode(bits, type);
    }

    /** The array's bytes in the host's order, taken whole by the JDK (not by the code under test). */
    static byte[] bytesOf(Object array) {
        ByteBuffer b = ByteBuffer.allocate(Array.getLength(array) * Slices.width(array)).order(ByteOrder.nativeOrder());
        move(b, array, true);
        return b.array();
    }

    static Object decode(byte[] bytes, Class<?> type) {
        Object array = Array.newInstance(type.getComponentType(), bytes.length / width(type));
        move(ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()), array, false);
        return array;
    }

    /** Copies every element of {@code array} into {@code b}'s view of its element type, or ({@code !in}) back. */
    private static void move(ByteBuffer b, Object array, boolean in) {
        java.nio.Buffer moved =
                array instanceof double[] a ? (in ? b.asDoubleBuffer().put(a) : b.asDoubleBuffer().get(a))
                : array instanceof long[] a ? (in ? b.asLongBuffer().put(a) : b.asLongBuffer().get(a))
                : array instanceof float[] a ? (in ? b.asFloatBuffer().put(a) : b.asFloatBuffer().get(a))
                : array instanceof int[] a ? (in ? b.asIntBuffer().put(a) : b.asIntBuffer().get(a))
                : array instanceof short[] a ? (in ? b.asShortBuffer().put(a) : b.asShortBuffer().get(a))
                : array instanceof char[] a ? (in ? b.asCharBuffer().put(a) : b.asCharBuffer().get(a))
                : in ? b.put((byte[]) array) : b.get((byte[]) array);
        assert moved.position() == Array.getLength(array);
    }
}
