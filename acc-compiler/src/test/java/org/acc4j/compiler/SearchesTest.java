package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.acc4j.compiler.fixtures.SearchKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;

/**
 * Searches that keep their index ({@link SearchKernels}) become a reduction and a loop for the index, both parallel,
 * and give plain Java's index and value on the kernel interpreter: ties (values from a few), NaNs, and a starting
 * value no element passes.
 */
class SearchesTest {
    private static double[] values(Random r, int n, boolean nans) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(9) - 4 + (nans && r.nextInt(50) == 0 ? Double.NaN : 0);
        }
        return a;
    }

    private static void allOnTheDevice(CompiledMethod m) {
        assertTrue(m.report().stream().anyMatch(l -> l.contains("a search for the")), m.report()::toString);
        assertEquals(2, m.kernels().size(), m.report()::toString);
        for (KernelPlan k : m.kernels()) {
            assertTrue(k.region().reductions().size() == 1, () -> "a reduction each: " + m.report());
        }
    }

    @Test
    void aPivotSearchIsJavas() throws Exception {
        CompiledMethod m = CompilerTest.offload(SearchKernels.class, "pivot");
        allOnTheDevice(m);
        for (long seed = 1; seed <= 12; seed++) {
            Random r = new Random(seed);
            int n = 3000;
            double[] a = values(r, n, seed % 2 == 0);
            int j = r.nextInt(20);
            double diagonal = seed == 3 ? 100 : seed == 5 ? Double.NaN : a[j];
            int expected = SearchKernels.pivot(a, j, n, diagonal);
            assertEquals(expected, KernelInterpreter.run(m, new Object[] {a, j, n, diagonal}, 3), "seed " + seed);
        }
    }

    @Test
    void theLastOfTheLeastAndTheFirstOfTheGreatestAreJavas() throws Exception {
        CompiledMethod last = CompilerTest.offload(SearchKernels.class, "lastLeast");
        allOnTheDevice(last);
        CompiledMethod first = CompilerTest.offload(SearchKernels.class, "firstGreatest");
        allOnTheDevice(first);
        for (long seed = 1; seed <= 12; seed++) {
            Random r = new Random(seed);
            int n = 2000;
            double[] a = values(r, n, seed % 3 == 0);
            double start = seed == 4 ? -1000 : seed == 6 ? Double.NaN : 3;
            long expected = SearchKernels.lastLeast(a, start, n);
            assertEquals(expected, KernelInterpreter.run(last, new Object[] {a, start, n}, 3), "seed " + seed);
            int[] ints = r.ints(n, -30, 30).toArray();
            assertEquals(SearchKernels.firstGreatest(ints, seed == 2 ? 0 : n),
                    KernelInterpreter.run(first, new Object[] {ints, seed == 2 ? 0 : n}, 3), "seed " + seed);
        }
    }
}
