package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Array;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * Staged copies whose chunks ramp up and down ({@link Settings#rampBytes()}) against {@link FakeLanes}: every element
 * type at lengths on and beside every ramp step, chunk and slot boundary and at lengths that are multiples of nothing,
 * with one to six threads, checked on the device and on the host separately; and a device copy refused or failing at
 * every position of a ramped copy, each way, leaving nothing recorded as copied and the next copy whole.
 */
class StagedRampTest {
    /**
     * Slots of 4096 bytes, 3 per lane; middle chunks of 512 bytes at least; a ramp from 24 bytes; pieces from 8; with
     * 3 threads, the lane asked whether a copy is done at most every 20 microseconds and the pieces left to the
     * helpers once one has started; with 6, the first copies to the host queued all at once.
     */
    private static Settings ramped(int threads) {
        return new Settings(0, 4096, 3, 1, 512, 4, 8, Settings.ROWS_MIN_BYTES, threads, HostCopy.BUFFER, true, 24,
                Crew.SPIN_MICROS, threads == 3 ? 20 : 0).withCallerCopies(threads != 3).withInterleave(threads != 6);
    }

    private static final Class<?>[] TYPES = {byte[].class, short[].class, char[].class, int[].class, long[].class,
            float[].class, double[].class};

    @Test
    void everyTypeAndLengthArrivesWholeEachWay() {
        Random r = new Random(77);
        for (int threads : new int[] {1, 3, 6}) {
            FakeLanes lanes = new FakeLanes();
            lanes.delayMicros = 10;
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(ramped(threads), lanes)) {
                for (Class<?> type : TYPES) {
                    int width = Slices.width(Array.newInstance(type.getComponentType(), 0));
                    for (int length : lengths(width, r)) {
                        Object array = StagedCopyTest.random(type, length, r);
                        byte[] expected = StagedCopyTest.bytesOf(array);
                        FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
                        assertTrue(staged.toDevice(array, device));
                        String what = threads + " threads, " + type.getSimpleName() + " of " + length + ": "
                                + staged.plan(width, length);
                        assertArrayEquals(expected, device.data.array(), what);
                        byte[] other = new byte[expected.length];
                        r.nextBytes(other);
                        device.data.put(0, other);
                        Object back = Array.newInstance(type.getComponentType(), length);
                        assertTrue(staged.toHost(device, back));
                        assertArrayEquals(other, StagedCopyTest.bytesOf(back), what + ", back");
                    }
                }
            }
            assertEquals(List.of(), lanes.violations);
        }
    }

    /** Lengths on and beside the ramp's steps, the middle chunks' and the slots' boundaries, and odd ones. */
    private static TreeSet<Integer> lengths(int width, Random r) {
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int n = 1; n <= 20; n++) {
            lengths.add(n);
        }
        long ramp = Math.max(1, 24 / width);
        long chunk = 512 / width;
        for (int k = 1; k <= 6; k++) {
            long up = ramp * ((1L << k) - 1);
            for (long base : new long[] {2 * up, 2 * up + chunk, 2 * up + 3 * chunk, k * 4096L / width}) {
                for (int d = -1; d <= 1; d++) {
                    lengths.add((int) (base + d));
                }
            }
        }
        for (int i = 0; i < 3; i++) {
            lengths.add(997 + r.nextInt(20_000));
        }
        return lengths;
    }

    @Test
    void aDeviceCopyFailingAnywhereInARampedCopyLeavesNothingCopiedAndTheNextCopyWhole() {
        Random r = new Random(79);
        double[] array = (double[]) StagedCopyTest.random(double[].class, 1000, r);
        Plan plan = new StagedCopy<>(ramped(3), new FakeLanes()).plan(8, array.length);
        assertTrue(plan.count(0) < plan.chunkElements(), "the plan ramps: " + plan);
        for (boolean in : new boolean[] {true, false}) {
            for (boolean whenQueued : new boolean[] {true, false}) {
                for (int k = 1; k <= plan.chunks(); k++) {
                    FakeLanes lanes = new FakeLanes();
                    lanes.delayMicros = 5;
                    try (StagedCopy<FakeDevice> staged = new StagedCopy<>(ramped(3), lanes)) {
                        FakeDevice.Bytes device = FakeDevice.bytes(8 * array.length);
                        if (whenQueued) {
                            lanes.refuseCopy = k;
                        } else {
                            lanes.failCopy = k;
                        }
                        double[] target = new double[array.length];
                        IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
                            if (in) {
                                staged.toDevice(array, device);
                            } else {
                                staged.toHost(device, target);
                            }
                        });
                        int failing = k;
                        assertTrue(e.getMessage().startsWith("copy " + failing + " "), e::getMessage);
                        assertEquals(0, staged.staged(), "a failed copy is not counted as staged");
                        assertTrue(lanes.opened.get(0).closed, "the failed lane is drained and freed");
                        lanes.refuseCopy = 0;
                        lanes.failCopy = 0;
                        double[] back = new double[array.length];
                        assertTrue(staged.toDevice(array, device));
                        assertTrue(staged.toHost(device, back));
                        assertArrayEquals(array, back, (in ? "to the device" : "to the host") + ", copy " + k);
                        assertEquals(List.of(), lanes.violations);
                    }
                }
            }
        }
    }
}
