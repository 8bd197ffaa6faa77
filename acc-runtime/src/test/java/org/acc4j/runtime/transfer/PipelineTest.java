package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * {@link Pipeline} on its own against {@link FakeLanes} (which check the lane's rules as the copies run): many
 * chunks through few slots with helpers of their own pool, helpers that never start, and a piece that fails on a
 * helper or on the caller in the middle of a copy.
 */
class PipelineTest {
    private static final Settings TINY = new Settings(0, 256, 3, 1, 64, 4, 16);
    /** TINY with chunks of 16 and 32 bytes at each end of a copy. */
    private static final Settings RAMPED = new Settings(0, 256, 3, 1, 64, 4, 16, Settings.ROWS_MIN_BYTES, 0,
            HostCopy.BUFFER, true, 16, 200, 0);

    @Test
    void manyChunksThroughFewSlotsArriveWholeEachWay() throws Exception {
        Random r = new Random(3);
        ExecutorService helpers = Executors.newFixedThreadPool(5);
        try {
            for (int length : new int[] {2, 5, 6, 7, 12, 13, 31, 32, 33, 95, 96, 97, 1000, 4099}) {
                for (int n : new int[] {0, 1, 5}) {
                    for (boolean callerCopies : new boolean[] {true, false}) {
                        roundTrip(TINY, length, n, helpers, r, callerCopies);
                        roundTrip(RAMPED, length, n, helpers, r, callerCopies);
                    }
                }
            }
        } finally {
            helpers.shutdown();
        }
    }

    private static void roundTrip(Settings s, int length, int n, Executor helpers, Random r, boolean callerCopies) {
        FakeLanes lanes = new FakeLanes();
        lanes.delayMicros = 30;
        FakeLanes.Lane lane = lanes.open(s.slotBytes(), s.slots());
        StagedCopy<FakeDevice> staged = new StagedCopy<>(s, lanes, 2);
        double[] a = (double[]) StagedCopyTest.random(double[].class, length, r);
        Plan plan = staged.plan(8, length);
        FakeDevice.Bytes device = FakeDevice.bytes(8 * length);
        Pipeline.run(plan, StagedCopy.Host.of(a), lane, device, true, helpers, n, null, 0, callerCopies, true,
                callerCopies ? Long.MAX_VALUE : 0);
        lane.drain();
        assertArrayEquals(StagedCopyTest.bytesOf(a), device.data.array(),
                () -> plan + ", " + n + " helpers, caller copies " + callerCopies);
        double[] back = new double[length];
        Pipeline.run(plan, StagedCopy.Host.of(back), lane, device, false, helpers, n, null, 0, callerCopies,
                callerCopies == (n == 1), 0);
        lane.drain();
        assertArrayEquals(a, back, () -> plan + " back, " + n + " helpers, caller copies " + callerCopies);
        assertEquals(List.of(), lanes.violations);
        lane.close();
    }

    @Test
    void helpersThatNeverStartLeaveTheWholeCopyToTheCaller() {
        Executor never = task -> { };
        FakeLanes lanes = new FakeLanes();
        FakeLanes.Lane lane = lanes.open(TINY.slotBytes(), TINY.slots());
        StagedCopy<FakeDevice> staged = new StagedCopy<>(TINY, lanes, 2);
        int[] a = (int[]) StagedCopyTest.random(int[].class, 777, new Random(4));
        FakeDevice.Bytes device = FakeDevice.bytes(4 * a.length);
        for (boolean callerCopies : new boolean[] {true, false}) {
            Pipeline.run(staged.plan(4, a.length), StagedCopy.Host.of(a), lane, device, true, never, 8, null, 0,
                    callerCopies, true, 0);
            lane.drain();
            assertArrayEquals(StagedCopyTest.bytesOf(a), device.data.array());
            int[] back = new int[a.length];
            Pipeline.run(staged.plan(4, a.length), StagedCopy.Host.of(back), lane, device, false, never, 8, null, 0,
                    callerCopies, !callerCopies, 0);
            assertArrayEquals(a, back);
        }
        assertEquals(List.of(), lanes.violations);
    }

    @Test
    void aPieceFailingInTheMiddleStopsTheCopyAndIsThrownOnceTheHelpersAreOut() throws Exception {
        ExecutorService helpers = Executors.newFixedThreadPool(4);
        try {
            for (boolean in : new boolean[] {true, false}) {
                for (int bad : new int[] {0, 7, 30, 62}) {
                    for (int n : new int[] {0, 4}) {
                        FakeLanes lanes = new FakeLanes();
                        FakeLanes.Lane lane = lanes.open(TINY.slotBytes(), TINY.slots());
                        StagedCopy<FakeDevice> staged = new StagedCopy<>(TINY, lanes, 2);
                        // 64 rows of 4 longs, one of them too short: its piece throws wherever it runs
                        Object[] rows = new Object[64];
                        for (int i = 0; i < rows.length; i++) {
                            rows[i] = new long[i == bad ? 1 : 4];
                        }
                        StagedCopy.Host host = new StagedCopy.Host(null, rows, 8, 4, 256);
                        FakeDevice.Bytes device = FakeDevice.bytes(8 * 256);
                        assertThrows(IndexOutOfBoundsException.class, () -> Pipeline.run(staged.plan(8, 256), host,
                                lane, device, in, helpers, n), "row " + bad + ", " + n + " helpers");
                        lane.drain();
                        assertEquals(List.of(), lanes.violations);
                    }
                }
            }
        } finally {
            helpers.shutdown();
            assertTrue(helpers.awaitTermination(10, TimeUnit.SECONDS), "every helper returned");
        }
    }
}
