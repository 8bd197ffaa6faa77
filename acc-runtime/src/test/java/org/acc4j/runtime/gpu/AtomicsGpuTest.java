package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code Acc.atomic...} on the GPU through the runtime against the same methods run as plain Java on random inputs
 * from fixed seeds: integer histograms, minima, maxima and bit sets exactly; a double histogram within the bound of
 * a sum in another order; tickets that are every number once; one compare-and-set winner per slot. Skips, saying why,
 * where there is no CUDA device.
 */
@Tag("gpu")
class AtomicsGpuTest {
    private static final int N = 1_000_003;
    private static final int BINS = 97;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static int[] data(Random r) {
        int[] d = new int[N];
        for (int i = 0; i < N; i++) {
            // a skewed distribution: many collisions on the low bins
            d[i] = Math.min(r.nextInt(BINS), r.nextInt(BINS));
        }
        return d;
    }

    @Test
    void histogramMatchesPlainJava() {
        Random r = new Random(42);
        int[] data = data(r);
        double[] weight = r.doubles(N).map(x -> x - 0.25).toArray();
        int[] bins = new int[BINS];
        long[] wide = new long[BINS];
        double[] sums = new double[BINS];
        assertTrue(AccRuntime.offload(AtomicFixtures.class, "histogram", "([I[J[D[I[DI)V", null,
                new Object[] {bins, wide, sums, data, weight, N}), "histogram ran on the host");
        int[] pb = new int[BINS];
        long[] pw = new long[BINS];
        double[] ps = new double[BINS];
        double[] abs = new double[BINS];
        AtomicFixtures.histogram(pb, pw, ps, data, weight, N);
        for (int i = 0; i < N; i++) {
            abs[data[i]] += Math.abs(weight[i]);
        }
        assertArrayEquals(pb, bins);
        assertArrayEquals(pw, wide);
        for (int b = 0; b < BINS; b++) {
            // a sum of k terms in any order differs from Java's by at most 2 (k - 1) eps sum|w|
            double bound = 2.0 * (pb[b] - 1) * Math.ulp(1.0) * abs[b];
            assertTrue(Math.abs(ps[b] - sums[b]) <= bound, "bin " + b + ": " + ps[b] + " vs " + sums[b]);
        }
    }

    @Test
    void ticketsAreEveryNumberOnce() {
        int[] counter = {7};
        int[] tickets = new int[N];
        Arrays.fill(tickets, -1);
        assertTrue(AccRuntime.offload(AtomicFixtures.class, "tickets", "([I[II)V", null, new Object[] {counter, tickets, N}),
                "tickets ran on the host");
        assertEquals(7 + N, counter[0]);
        Arrays.sort(tickets);
        for (int i = 0; i < N; i++) {
            assertEquals(7 + i, tickets[i]);
        }
    }

    @Test
    void extremesAndClaimsMatchPlainJava() {
        int[] data = data(new Random(7));
        int[] min = new int[BINS];
        Arrays.fill(min, Integer.MAX_VALUE);
        long[] max = new long[BINS];
        int[] ors = new int[BINS];
        int[] owner = new int[BINS];
        Arrays.fill(owner, -1);
        int[] won = new int[N];
        int[] pmin = min.clone();
        long[] pmax = max.clone();
        int[] pors = ors.clone();
        assertTrue(AccRuntime.offload(AtomicFixtures.class, "extremes", "([I[J[I[I[I[II)V", null,
                new Object[] {min, max, ors, owner, won, data, N}), "extremes ran on the host");
        AtomicFixtures.extremes(pmin, pmax, pors, new int[BINS], new int[N], data, N);
        assertArrayEquals(pmin, min);
        assertArrayEquals(pmax, max);
        assertArrayEquals(pors, ors);
        int[] winners = new int[BINS];
        for (int i = 0; i < N; i++) {
            if (won[i] == 1) {
                winners[data[i]]++;
                assertEquals(i, owner[data[i]]);
            }
        }
        for (int b = 0; b < BINS; b++) {
            assertEquals(1, winners[b], "one winner in slot " + b);
        }
    }
}
