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
        Acc.install(AccRuntime.get().backend());
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

    /** Values with signed zeros, one NaN bin and ordinary numbers: each bin's extremes are order-independent. */
    static double[] awkward(Random r, int[] data) {
        double[] v = new double[data.length];
        for (int i = 0; i < v.length; i++) {
            int kind = r.nextInt(10);
            v[i] = kind == 0 ? 0.0 : kind == 1 ? -0.0 : data[i] == 3 && kind == 2 ? Double.NaN : r.nextGaussian() * 1e3;
        }
        return v;
    }

    @Test
    void floatingPointExtremesAreJavasMinAndMax() {
        Random r = new Random(11);
        int[] data = data(r);
        double[] values = awkward(r, data);
        float[] fmin = new float[BINS];
        float[] fmax = new float[BINS];
        double[] dmin = new double[BINS];
        double[] dmax = new double[BINS];
        Arrays.fill(fmin, Float.POSITIVE_INFINITY);
        Arrays.fill(fmax, Float.NEGATIVE_INFINITY);
        Arrays.fill(dmin, Double.POSITIVE_INFINITY);
        Arrays.fill(dmax, Double.NEGATIVE_INFINITY);
        float[] pfmin = fmin.clone();
        float[] pfmax = fmax.clone();
        double[] pdmin = dmin.clone();
        double[] pdmax = dmax.clone();
        double[] oldMin = new double[N];
        assertTrue(AccRuntime.offload(AtomicFixtures.class, "floatExtremes", "([F[F[D[D[D[I[DI)V", null,
                new Object[] {fmin, fmax, dmin, dmax, oldMin, data, values, N}), "floatExtremes ran on the host");
        AtomicFixtures.floatExtremes(pfmin, pfmax, pdmin, pdmax, new double[N], data, values, N);
        for (int b = 0; b < BINS; b++) {
            assertEquals(Float.floatToRawIntBits(pfmin[b]), Float.floatToRawIntBits(fmin[b]), "fmin " + b);
            assertEquals(Float.floatToRawIntBits(pfmax[b]), Float.floatToRawIntBits(fmax[b]), "fmax " + b);
            assertEquals(Double.doubleToRawLongBits(pdmin[b]), Double.doubleToRawLongBits(dmin[b]), "dmin " + b);
            assertEquals(Double.doubleToRawLongBits(pdmax[b]), Double.doubleToRawLongBits(dmax[b]), "dmax " + b);
        }
        // each captured old minimum is the bin's start or some value of the bin, never below the final minimum
        for (int i = 0; i < N; i++) {
            double old = oldMin[i];
            double fin = dmin[data[i]];
            assertTrue(old == Double.POSITIVE_INFINITY || Double.isNaN(fin) || Double.compare(old, fin) >= 0,
                    "old minimum " + old + " below the final " + fin);
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
