package org.acc4j.runtime.tune;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tuner's rules with a fake clock: each block shape has a fixed device time (plus a per-launch wobble where a
 * test wants noise), so the median, the tie margin, the drop rule, the budget, the size classes and the disk cache can
 * be checked without a device.
 */
class TunerTest {
    static final int[] OWN = {128, 2, 1};
    static final List<int[]> BLOCKS = List.of(OWN, new int[] {32, 8, 1}, new int[] {64, 4, 1}, new int[] {256, 1, 1});
    static final long[] TRIPS = {8190, 8190};

    /** A clock whose launch takes the time given for the block being launched. */
    static class FakeTiming implements Tuner.Timing {
        final Map<String, Long> nanosByBlock = new HashMap<>();
        int[] block;
        long wobble;
        int starts;
        int stops;
        boolean closed;

        FakeTiming time(int[] b, long nanos) {
            nanosByBlock.put(Arrays.toString(b), nanos);
            return this;
        }

        @Override
        public void start() {
            starts++;
        }

        @Override
        public void stop() {
            stops++;
        }

        @Override
        public long nanos() {
            long w = wobble == 0 ? 0 : (stops % 3 - 1) * wobble;
            return nanosByBlock.get(Arrays.toString(block)) + w;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    static final class Outcomes implements Tuner.Listener {
        final List<String> lines = new ArrayList<>();
        long extra;
        long launches;

        @Override
        public void tuned(String kernel, String sizeClass, long launches, long nanos, long extra, String outcome) {
            lines.add(kernel + " [" + sizeClass + "] " + outcome);
            this.extra += extra;
            this.launches += launches;
        }
    }

    static Tuner.Shapes shapes(List<int[]> blocks) {
        return new Tuner.Shapes("Jacobi.java:34", "acc_sweep", "digest-of-ptx", blocks, null);
    }

    /** One call: picks a shape, "launches" it on the fake clock, reports it finished; returns the block used. */
    static int[] call(Tuner t, FakeTiming clock, List<int[]> blocks, long[] trips) {
        Tuner.Launch l = t.pick("k", () -> shapes(blocks), trips);
        int[] b = l == null ? blocks.get(0) : l.block();
        clock.block = b;
        t.start(l);
        t.stop(l);
        t.finished(l);
        return b;
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(5, Tuner.median(List.of(9L, 5L, 1L)));
        assertEquals(4, Tuner.median(List.of(7L, 1L, 3L, 5L)));
        assertEquals(42, Tuner.median(List.of(42L)));
        assertThrows(IllegalArgumentException.class, () -> Tuner.median(List.of()));
    }

    @Test
    void sizeClassIsTheBitLengthOfEachTrip() {
        assertEquals("13x13", Tuner.sizeClass(TRIPS));
        assertEquals("14x13", Tuner.sizeClass(new long[] {8192, 4097}));
        assertEquals("1x0x?", Tuner.sizeClass(new long[] {1, 0, -1}));
        assertEquals("0", Tuner.sizeClass(new long[0]));
    }

    @Test
    void theFastestShapeWinsAndIsUsedUntimedAfterwards() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 360_000)
                .time(BLOCKS.get(2), 390_000).time(BLOCKS.get(3), 420_000);
        Outcomes out = new Outcomes();
        List<String> report = new ArrayList<>();
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, report::add, out);
        List<String> used = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            used.add(Arrays.toString(call(t, clock, BLOCKS, TRIPS)));
        }
        // the own block first, then each candidate in turn; three timed launches each
        assertEquals("[128, 2, 1]", used.get(0));
        assertEquals(List.of("[32, 8, 1]", "[64, 4, 1]", "[256, 1, 1]"), used.subList(1, 4));
        int timed = clock.stops;
        assertEquals(12, timed);
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(BLOCKS.get(1), call(t, clock, BLOCKS, TRIPS));
        }
        assertEquals(timed, clock.stops, "a chosen shape is not timed");
        assertEquals(1, out.lines.size());
        assertTrue(out.lines.get(0).contains("block 32x8x1 chosen, 10.0% faster than 128x2x1"), out.lines.get(0));
        assertEquals(12, out.launches);
        // only the slower candidate cost time above the own block: 3 x 20 us
        assertEquals(60_000, out.extra);
        String last = report.get(report.size() - 1);
        assertTrue(last.contains("tried 128x2x1 400.0 us (own), 32x8x1 360.0 us, 64x4x1 390.0 us, 256x1x1 420.0 us"),
                last);
    }

    @Test
    void aCandidateWithinTheMarginDoesNotReplaceTheOwnBlock() {
        // 2 % faster: inside the 3 % margin
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 392_000)
                .time(BLOCKS.get(2), 400_000).time(BLOCKS.get(3), 401_000);
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, null, out);
        for (int i = 0; i < 12; i++) {
            call(t, clock, BLOCKS, TRIPS);
        }
        assertArrayEquals(OWN, call(t, clock, BLOCKS, TRIPS));
        assertTrue(out.lines.get(0).contains("block 128x2x1 kept (no shape 3.0% faster)"), out.lines.get(0));
    }

    @Test
    void theMedianIgnoresOneOutlier() {
        // the own block's launches wobble by +-50 us around 400; a single 10x outlier of the candidate is ignored
        FakeTiming clock = new FakeTiming() {
            int candidateLaunches;

            @Override
            public long nanos() {
                if (Arrays.equals(block, BLOCKS.get(1)) && candidateLaunches++ == 1) {
                    return 3_000_000;
                }
                return super.nanos();
            }
        }.time(OWN, 400_000).time(BLOCKS.get(1), 300_000);
        clock.wobble = 50_000;
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(new Rules(50_000, 3, 3, 0.03, 100, 1000), null, clock, null, out);
        List<int[]> two = List.of(OWN, BLOCKS.get(1));
        for (int i = 0; i < 6; i++) {
            call(t, clock, two, TRIPS);
        }
        assertArrayEquals(BLOCKS.get(1), call(t, clock, two, TRIPS));
    }

    @Test
    void aShortKernelIsWatchedThenLeftAlone() {
        FakeTiming clock = new FakeTiming().time(OWN, 20_000).time(BLOCKS.get(1), 1_000);
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, null, out);
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(OWN, call(t, clock, BLOCKS, TRIPS));
        }
        assertEquals(3, clock.stops, "three watched launches, then none timed");
        assertTrue(out.lines.get(0).contains("below the 50.0 us worth tuning"), out.lines.get(0));
    }

    @Test
    void aShortKernelCalledOftenIsTunedAfterAll() {
        FakeTiming clock = new FakeTiming().time(OWN, 20_000).time(BLOCKS.get(1), 15_000)
                .time(BLOCKS.get(2), 30_000).time(BLOCKS.get(3), 30_000);
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(new Rules(50_000, 3, 3, 0.03, 1.25, 3, 100, 10_000), null, clock, null, out);
        for (int i = 0; i < 99; i++) {
            assertArrayEquals(OWN, call(t, clock, BLOCKS, TRIPS));
        }
        assertEquals(3, clock.stops);
        for (int i = 0; i < 12; i++) {
            call(t, clock, BLOCKS, TRIPS);
        }
        assertArrayEquals(BLOCKS.get(1), call(t, clock, BLOCKS, TRIPS));
        assertEquals(2, out.lines.size(), out.lines.toString());
        assertTrue(out.lines.get(1).contains("block 32x8x1 chosen"), out.lines.toString());
        // a kernel below frequentNanos is never tuned
        FakeTiming tiny = new FakeTiming().time(OWN, 5_000).time(BLOCKS.get(1), 1_000);
        Tuner u = new Tuner(new Rules(50_000, 3, 3, 0.03, 1.25, 3, 100, 10_000), null, tiny, null, null);
        for (int i = 0; i < 500; i++) {
            assertArrayEquals(OWN, call(u, tiny, BLOCKS, TRIPS));
        }
        assertEquals(3, tiny.stops);
    }

    @Test
    void aMuchSlowerCandidateIsDroppedAfterOneLaunch() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 4_000_000)
                .time(BLOCKS.get(2), 380_000).time(BLOCKS.get(3), 401_000);
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(new Rules(50_000, 3, 3, 0.03, 1.25, 100), null, clock, null, out);
        int slow = 0;
        for (int i = 0; i < 20; i++) {
            if (Arrays.equals(call(t, clock, BLOCKS, TRIPS), BLOCKS.get(1))) {
                slow++;
            }
        }
        assertEquals(1, slow);
        assertEquals(1, out.lines.size());
        assertTrue(out.lines.get(0).contains("block 64x4x1 chosen"), out.lines.get(0));
    }

    @Test
    void theBudgetEndsTuningEarlyWithWhatWasMeasuredInFull() {
        // every candidate 20 % slower (under the drop ratio), the budget one launch time: it runs out in round two
        FakeTiming clock = new FakeTiming().time(OWN, 100_000).time(BLOCKS.get(1), 120_000)
                .time(BLOCKS.get(2), 120_000).time(BLOCKS.get(3), 120_000);
        Outcomes out = new Outcomes();
        List<String> report = new ArrayList<>();
        Tuner t = new Tuner(new Rules(50_000, 3, 3, 0.03, 1.25, 1.0), null, clock, report::add, out);
        for (int i = 0; i < 20; i++) {
            call(t, clock, BLOCKS, TRIPS);
        }
        assertEquals(1, out.lines.size());
        assertTrue(out.extra <= 100_000 + 20_000, "the candidates' time above the own block stays near the budget: "
                + out.extra);
        assertTrue(out.launches < 12, "fewer launches than a full tuning: " + out.launches);
        assertTrue(report.get(report.size() - 1).contains("the tuning budget ran out"), report.toString());
        assertArrayEquals(OWN, call(t, clock, BLOCKS, TRIPS));
    }

    @Test
    void eachSizeClassIsTunedOnItsOwn() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 300_000)
                .time(BLOCKS.get(2), 500_000).time(BLOCKS.get(3), 500_000);
        Outcomes out = new Outcomes();
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, null, out);
        for (int i = 0; i < 12; i++) {
            call(t, clock, BLOCKS, TRIPS);
        }
        assertArrayEquals(BLOCKS.get(1), call(t, clock, BLOCKS, TRIPS));
        long[] small = {4000, 4000};
        assertArrayEquals(OWN, call(t, clock, BLOCKS, small), "a new size class starts from the own block");
        // 8000 is in the same class as 8190
        assertArrayEquals(BLOCKS.get(1), call(t, clock, BLOCKS, new long[] {8000, 8100}));
    }

    @Test
    void aKernelThatKeepsItsBlockIsNeverTimed() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000);
        List<String> report = new ArrayList<>();
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, report::add, null);
        Tuner.Shapes fixed = new Tuner.Shapes("Dot.java:9", "acc_dot", "d", List.of(OWN),
                "its double reduction of s combines per block, so another block rounds differently");
        for (int i = 0; i < 3; i++) {
            assertNull(t.pick("fixed", () -> fixed, TRIPS));
        }
        assertEquals(0, clock.starts);
        assertEquals(List.of("Dot.java:9: kernel acc_dot: block 128x2x1 not tuned: its double reduction of s combines"
                + " per block, so another block rounds differently"), report);
    }

    @Test
    void aCandidateWhoseLaunchesNeverFinishIsDropped() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 300_000);
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, null, null);
        List<int[]> two = List.of(OWN, BLOCKS.get(1));
        call(t, clock, two, TRIPS);
        // the candidate's launches fail twice (no finished call): it is not picked again
        for (int i = 0; i < 2; i++) {
            Tuner.Launch l = t.pick("k", () -> shapes(two), TRIPS);
            assertArrayEquals(BLOCKS.get(1), l.block());
        }
        for (int i = 0; i < 6; i++) {
            assertArrayEquals(OWN, call(t, clock, two, TRIPS));
        }
    }

    @Test
    void theChoiceIsKeptOnDiskAndTakenUntimedByTheNextRun(@TempDir Path dir) {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 300_000)
                .time(BLOCKS.get(2), 500_000).time(BLOCKS.get(3), 500_000);
        List<String> warnings = new ArrayList<>();
        ShapeCache cache = new ShapeCache(dir, "GPU|driver 1|sm_90", warnings::add);
        Tuner first = new Tuner(Rules.DEFAULT, cache, clock, null, null);
        for (int i = 0; i < 12; i++) {
            call(first, clock, BLOCKS, TRIPS);
        }
        assertTrue(java.nio.file.Files.isRegularFile(cache.file("digest-of-ptx", "13x13")));
        FakeTiming second = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 300_000);
        List<String> report = new ArrayList<>();
        Tuner next = new Tuner(Rules.DEFAULT, new ShapeCache(dir, "GPU|driver 1|sm_90", warnings::add), second,
                report::add, null);
        assertArrayEquals(BLOCKS.get(1), call(next, second, BLOCKS, TRIPS));
        assertEquals(0, second.stops);
        assertTrue(report.get(0).contains("tuned in an earlier run"), report.toString());
        assertEquals(List.of(), warnings);
    }

    @Test
    void anUntimedLaunchTakesTheChoiceOnceMadeAndCountsForNothing() {
        FakeTiming clock = new FakeTiming().time(OWN, 400_000).time(BLOCKS.get(1), 300_000)
                .time(BLOCKS.get(2), 500_000).time(BLOCKS.get(3), 500_000);
        Tuner t = new Tuner(Rules.DEFAULT, null, clock, null, null);
        assertNull(t.chosen("k", () -> shapes(BLOCKS), TRIPS), "nothing chosen yet: the own block");
        for (int i = 0; i < 12; i++) {
            call(t, clock, BLOCKS, TRIPS);
            if (i < 11) {
                assertNull(t.chosen("k", () -> shapes(BLOCKS), TRIPS));
            }
        }
        assertEquals(12, clock.stops, "the untimed launches did not disturb the turns");
        Tuner.Launch l = t.chosen("k", () -> shapes(BLOCKS), TRIPS);
        assertArrayEquals(BLOCKS.get(1), l.block());
        assertFalse(l.timed());
    }

    @Test
    void closingReleasesTheClock() {
        FakeTiming clock = new FakeTiming();
        new Tuner(Rules.DEFAULT, null, clock, null, null).close();
        assertTrue(clock.closed);
        assertFalse(new FakeTiming().closed);
    }

    @Test
    void rulesOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Rules(50_000, 3, 0, 0.03, 1.25, 3));
        assertThrows(IllegalArgumentException.class, () -> new Rules(50_000, 3, 3, 1, 1.25, 3));
        assertThrows(IllegalArgumentException.class, () -> new Rules(50_000, 3, 3, 0.03, 1, 3));
    }
}
