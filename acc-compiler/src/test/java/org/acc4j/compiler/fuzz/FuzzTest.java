package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer's interpreter side on a fixed set of seeds: each random nest compiled, and either
 * refused with a diagnostic or run on the kernel interpreter (small and large grids) against plain Java, bit for
 * bit. {@code -Dacc4j.fuzz.first=...} and {@code -Dacc4j.fuzz.nests=...} run other seeds.
 */
class FuzzTest {
    /** Seeds CI runs; every one passes (a seed that finds a bug becomes a test in {@link RegressionTest}). */
    static final long FIRST = Long.getLong("acc4j.fuzz.first", 1);
    static final long COUNT = Long.getLong("acc4j.fuzz.nests", 400);

    /** Constructs kept out of CI's nests while the bugs they expose are open (none at present). */
    static final NestGenerator.Options CI = NestGenerator.Options.ALL;

    @Test
    void randomNestsMatchPlainJavaOrStayOnTheHostWithADiagnostic() throws Exception {
        Harness.Tally t = Fuzz.interpret(FIRST, COUNT, CI);
        System.out.print("fuzz (interpreter), seeds " + FIRST + ".." + (FIRST + COUNT - 1) + ": " + t.summary());
        assertTrue(t.failures.isEmpty(), t::summary);
        assertEquals(COUNT, t.nests);
        assertTrue(t.count(Outcome.Kind.OFFLOADED) > COUNT / 3, () -> "too few nests offloaded: " + t.summary());
    }

    @Test
    void aNestIsAPureFunctionOfItsSeed() {
        for (long s = 1; s <= 20; s++) {
            Nest a = NestGenerator.generate(s, CI);
            Nest b = NestGenerator.generate(s, CI);
            assertEquals(a.source(), b.source());
            assertEquals(Nest.firstDifference(a.args(), b.args(), a.params()), null);
        }
    }

    @Test
    void switchedOffConstructsStayOut() {
        NestGenerator.Options o = CI.without("annotations", "unsupported", "2d");
        for (long s = 1; s <= 200; s++) {
            Nest n = NestGenerator.generate(s, o);
            assertTrue(!n.source().contains("@Loop") && n.unsupported() == null && !n.source().contains("[][]"), n::source);
        }
    }
}
