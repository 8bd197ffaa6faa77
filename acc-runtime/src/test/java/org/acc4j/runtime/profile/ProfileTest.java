package org.acc4j.runtime.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.acc4j.runtime.profile.Profiler.Kind;
import org.acc4j.runtime.profile.Profiler.RegionStats;
import org.acc4j.runtime.profile.Profiler.Snapshot;
import org.junit.jupiter.api.Test;

/** The profile's bookkeeping, text and JSON, on a fake clock with recorded synthetic timings. */
class ProfileTest {
    /** Stand-ins for the classes that hold the regions. */
    static final class Solver {
    }

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Profiler profile = new Profiler(now::get);

    private void tick(long nanos) {
        now.addAndGet(nanos);
    }

    /**
     * A data region around two calls of a kernels method, the first compiling it: each call launches two kernels;
     * copies in both regions, one copy outside.
     */
    private Snapshot solve() {
        profile.device("Fake GPU (device 0, sm_90)");
        profile.transferred(true, 64, 10);
        try (Profiler.Scope data = profile.enter(Kind.DATA, Solver.class, "solve", "([D[DI)V")) {
            tick(100);
            profile.transferred(true, 8000, 700);
            tick(700);
            for (int call = 0; call < 2; call++) {
                try (Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "([D[DI)V")) {
                    if (call == 0) {
                        tick(5000);
                        profile.compiled(4000, 900);
                    }
                    profile.transferred(true, 4, 3);
                    tick(3);
                    profile.kernel("acc_Solver_step_r0", 300 + 100 * call, new int[] {64, 1, 1}, new int[] {128, 1, 1});
                    tick(400);
                    profile.kernel("acc_Solver_step_r1", 50, new int[] {8, 2, 1}, new int[] {16, 2, 1});
                    tick(60);
                    profile.transferred(false, 8, 5);
                    tick(5);
                }
                tick(20);
            }
            profile.transferred(false, 8000, 650);
            tick(650);
        }
        return profile.snapshot();
    }

    @Test
    void regionsCountEntriesLaunchesBytesAndTimes() {
        Snapshot s = solve();
        assertEquals(2, s.regions().size());
        RegionStats data = s.regions().get(0);
        assertEquals(Kind.DATA, data.kind());
        assertEquals("ProfileTest.Solver.solve", data.displayName());
        assertEquals(1, data.entries());
        // wall time is inclusive of the nested region
        assertEquals(100 + 700 + 5000 + 2 * (3 + 400 + 60 + 5 + 20) + 650, data.wallNanos());
        // copies are exclusive: only the data region's own
        assertEquals(new Profiler.Traffic(1, 8000, 700), data.toDevice());
        assertEquals(new Profiler.Traffic(1, 8000, 650), data.toHost());
        assertTrue(data.kernels().isEmpty());

        RegionStats step = s.regions().get(1);
        assertEquals(Kind.KERNELS, step.kind());
        assertEquals(2, step.entries());
        assertEquals(0, step.hostRuns());
        assertEquals(5000 + 2 * (3 + 400 + 60 + 5), step.wallNanos());
        assertEquals(4000, step.compileNanos());
        assertEquals(900, step.loadNanos());
        assertEquals(new Profiler.Traffic(2, 8, 6), step.toDevice());
        assertEquals(new Profiler.Traffic(2, 16, 10), step.toHost());
        assertEquals(2, step.kernels().size());
        Profiler.KernelStats r0 = step.kernels().get(0);
        assertEquals("acc_Solver_step_r0", r0.name());
        assertEquals(2, r0.launches());
        assertEquals(700, r0.totalNanos());
        assertEquals(300, r0.minNanos());
        assertEquals(400, r0.maxNanos());
        assertEquals(350, r0.meanNanos());
        assertEquals(List.of(64, 1, 1), List.of(r0.grid()[0], r0.grid()[1], r0.grid()[2]));
        assertEquals(2 * 50, step.kernels().get(1).totalNanos());
        assertEquals(700 + 100, step.kernelNanos());
        assertEquals(16, step.transferNanos());

        assertEquals(new Profiler.Traffic(1, 64, 10), s.outside().toDevice());
        assertEquals(Profiler.Traffic.NONE, s.outside().toHost());
    }

    @Test
    void jsonParsesBackAndAddsUp() {
        Snapshot s = solve();
        String json = ProfileFormat.json(s);
        Map<?, ?> doc = ProfileAssertions.assertConsistent(json);
        assertEquals("Fake GPU (device 0, sm_90)", Json.get(doc, "device"));
        assertEquals("data", Json.get(doc, "regions", 0, "kind"));
        assertEquals(Solver.class.getName(), Json.get(doc, "regions", 0, "class"));
        assertEquals("solve", Json.get(doc, "regions", 0, "method"));
        assertEquals("([D[DI)V", Json.get(doc, "regions", 0, "descriptor"));
        assertEquals(8000L, Json.number(doc, "regions", 0, "toDevice", "bytes"));
        assertEquals(s.regions().get(0).wallNanos(), Json.number(doc, "regions", 0, "wallNs"));
        assertEquals("kernels", Json.get(doc, "regions", 1, "kind"));
        assertEquals(2L, Json.number(doc, "regions", 1, "entries"));
        assertEquals(4000L, Json.number(doc, "regions", 1, "compileNs"));
        assertEquals(900L, Json.number(doc, "regions", 1, "loadNs"));
        assertEquals("acc_Solver_step_r1", Json.get(doc, "regions", 1, "kernels", 1, "name"));
        assertEquals(2L, Json.number(doc, "regions", 1, "kernels", 1, "launches"));
        assertEquals(List.of(8L, 2L, 1L), Json.get(doc, "regions", 1, "kernels", 1, "grid"));
        assertEquals(List.of(16L, 2L, 1L), Json.get(doc, "regions", 1, "kernels", 1, "block"));
        assertEquals(350L, Json.number(doc, "regions", 1, "kernels", 0, "meanNs"));
        assertEquals(64L, Json.number(doc, "outside", "toDevice", "bytes"));
        assertEquals(0L, Json.number(doc, "outside", "toHost", "copies"));
    }

    @Test
    void tuningIsListedInTextAndJson() {
        Snapshot empty = profile.snapshot();
        assertEquals(List.of(), Json.get(ProfileAssertions.assertConsistent(ProfileFormat.json(empty)), "tuning"));
        assertFalse(ProfileFormat.text(empty).contains("tuned"), ProfileFormat.text(empty));
        profile.tuned("acc_Jacobi_sweep_r0_marched", "13x13", 15, 6_100_000, 250_000,
                "block 256x1x1 chosen, 4.0% faster than 128x1x1");
        Snapshot s = profile.snapshot();
        Map<?, ?> doc = ProfileAssertions.assertConsistent(ProfileFormat.json(s));
        assertEquals("acc_Jacobi_sweep_r0_marched", Json.get(doc, "tuning", 0, "kernel"));
        assertEquals("13x13", Json.get(doc, "tuning", 0, "sizeClass"));
        assertEquals(15L, Json.number(doc, "tuning", 0, "launches"));
        assertEquals(6_100_000L, Json.number(doc, "tuning", 0, "ns"));
        assertEquals(250_000L, Json.number(doc, "tuning", 0, "extraNs"));
        String t = ProfileFormat.text(s);
        assertTrue(t.contains("block shapes tuned at run time (device time of the timed launches, of which above the"
                + " own block)\n    kernel acc_Jacobi_sweep_r0_marched [13x13]: 15 times; time(us): 6,100.0, above"
                + " 250.0; block 256x1x1 chosen, 4.0% faster than 128x1x1\n"), t);
    }

    @Test
    void theCheckCatchesAProfileThatDoesNotAddUp() {
        try (Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "()V")) {
            // a kernel longer than the region around it: impossible with one clock, caught by the check
            profile.kernel("acc_Solver_step_r0", 500, new int[] {1, 1, 1}, new int[] {32, 1, 1});
            tick(100);
        }
        String json = ProfileFormat.json(profile.snapshot());
        AssertionError e = assertThrows(AssertionError.class, () -> ProfileAssertions.assertConsistent(json));
        assertTrue(e.getMessage().contains("kernel time + transfer time 500 ns > wall time 100 ns"), e.getMessage());
    }

    @Test
    void anEmptyProfileIsValidJsonAndSaysSoInText() {
        Snapshot s = profile.snapshot();
        Map<?, ?> doc = ProfileAssertions.assertConsistent(ProfileFormat.json(s));
        assertEquals(List.of(), Json.get(doc, "regions"));
        assertTrue(ProfileFormat.text(s).contains("no region has run on the device"), ProfileFormat.text(s));
    }

    @Test
    void textReadsLikeMinfoTime() {
        String t = ProfileFormat.text(solve());
        String expected = """
                acc4j profile, device: Fake GPU (device 0, sm_90); times in microseconds (kernels timed with CUDA events, copies as host wall time)

                ProfileTest.Solver.solve  data region  ([D[DI)V
                    reached 1 time; time(us): 7.4
                    copies to device: 1, 8,000 bytes; time(us): 0.7 (11.43 GB/s)
                    copies to host: 1, 8,000 bytes; time(us): 0.7 (12.31 GB/s)

                ProfileTest.Solver.step  kernels region  ([D[DI)V
                    reached 2 times; time(us): 5.9, of which compile 4.0 and load 0.9
                    kernel acc_Solver_step_r0 launched 2 times; first grid: [64x1x1] block: [128x1x1]
                        device time(us): total=0.7 max=0.4 min=0.3 avg=0.4
                    kernel acc_Solver_step_r1 launched 2 times; first grid: [8x2x1] block: [16x2x1]
                        device time(us): total=0.1 max=0.1 min=0.1 avg=0.1
                    copies to device: 2, 8 bytes; time(us): 0.0 (1.33 GB/s)
                    copies to host: 2, 16 bytes; time(us): 0.0 (1.60 GB/s)

                outside regions (Acc routines, host runs' copies)
                    copies to device: 1, 64 bytes; time(us): 0.0 (6.40 GB/s)
                """;
        assertEquals(expected, t);
    }

    @Test
    void hostRunsAreCounted() {
        try (Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "()V")) {
            k.ranOnHost();
        }
        try (Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "()V")) {
            tick(10);
        }
        RegionStats r = profile.snapshot().regions().get(0);
        assertEquals(2, r.entries());
        assertEquals(1, r.hostRuns());
        assertEquals(10, r.wallNanos());
        assertTrue(ProfileFormat.text(profile.snapshot()).contains("reached 2 times, 1 of them on the host (not timed)"));
    }

    @Test
    void overloadsAreSeparateRegions() {
        profile.enter(Kind.KERNELS, Solver.class, "step", "([F)V").close();
        profile.enter(Kind.KERNELS, Solver.class, "step", "([D)V").close();
        profile.enter(Kind.DATA, Solver.class, "step", "([D)V").close();
        assertEquals(3, profile.snapshot().regions().size());
    }

    @Test
    void copiesOnAnotherThreadGoToThatThreadsRegion() throws Exception {
        try (Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "()V")) {
            Thread other = new Thread(() -> profile.transferred(true, 100, 1));
            other.start();
            other.join();
            profile.transferred(true, 8, 1);
        }
        Snapshot s = profile.snapshot();
        assertEquals(new Profiler.Traffic(1, 8, 1), s.regions().get(0).toDevice());
        assertEquals(new Profiler.Traffic(1, 100, 1), s.outside().toDevice());
    }

    @Test
    void closingTwiceCountsOnce() {
        Profiler.Scope k = profile.enter(Kind.KERNELS, Solver.class, "step", "()V");
        tick(5);
        k.close();
        tick(5);
        k.close();
        assertEquals(5, profile.snapshot().regions().get(0).wallNanos());
        // nothing is open any more: a copy now is outside
        profile.transferred(false, 4, 1);
        assertEquals(4, profile.snapshot().outside().toHost().bytes());
    }

    @Test
    void jsonStringsAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", ProfileFormat.string("a\"b\\c\nd\u0001"));
        assertEquals("a\"b\\c\nd\u0001", Json.parse(ProfileFormat.string("a\"b\\c\nd\u0001")));
    }

    @Test
    void theQuietThreadLeavesNoTraceWhileOthersAreRecorded() throws Exception {
        Thread quiet = new Thread(() -> {
            org.acc4j.runtime.Log.quietOnThisThread(true);
            try {
                profile.transferred(true, 64, 5);
                try (Profiler.Scope s = profile.enter(Kind.KERNELS, Solver.class, "warm", "()V")) {
                    profile.compiled(10, 20);
                    profile.kernel("acc_warm_r0", 30, new int[] {1, 1, 1}, new int[] {32, 1, 1});
                    profile.transferred(false, 8, 2);
                }
                profile.kernel("acc_warm_r1", 30, new int[] {1, 1, 1}, new int[] {32, 1, 1});
                profile.tuned("acc_warm_r0", "n<=4096", 1, 30, 0, "kept");
            } finally {
                org.acc4j.runtime.Log.quietOnThisThread(false);
            }
        });
        quiet.start();
        quiet.join();
        try (Profiler.Scope s = profile.enter(Kind.KERNELS, Solver.class, "step", "()V")) {
            profile.kernel("acc_Solver_step_r0", 300, new int[] {64, 1, 1}, new int[] {128, 1, 1});
        }
        Snapshot snap = profile.snapshot();
        assertEquals(1, snap.regions().size(), "only the other thread's region");
        assertEquals("acc_Solver_step_r0", snap.regions().get(0).kernels().get(0).name());
        assertEquals(Profiler.Traffic.NONE, snap.outside().toDevice());
        assertTrue(snap.outside().kernels().isEmpty());
        assertTrue(snap.tunings().isEmpty());
        assertFalse(org.acc4j.runtime.Log.quiet(), "the mark is the marking thread's only");
    }
}
