package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The harnesses' statistics: medians and intervals on known inputs (odd and even counts, ties, too few values for an
 * interval), against direct computations on random samples from fixed seeds, and the interval's coverage.
 */
class PairedStatsTest {
    private static double[] shuffled(int n, long seed) {
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i + 1;
        }
        Random r = new Random(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            double t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        return x;
    }

    private static void assertInterval(double median, double low, double high, PairedStats.Interval iv) {
        assertEquals(new PairedStats.Interval(median, low, high), iv);
    }

    @Test
    void knownInputsGiveKnownMediansAndIntervals() {
        // odd counts: ranks 6 and 16 of 21, 10 and 22 of 31, whatever the order of the values
        assertInterval(11, 6, 16, PairedStats.medianInterval(shuffled(21, 1)));
        assertInterval(11, 6, 16, PairedStats.medianIntervalOrExtremes(shuffled(21, 1)));
        assertInterval(16, 10, 22, PairedStats.medianIntervalOrExtremes(shuffled(31, 2)));
        // even counts: the mean of the two middle values; ranks 2 and 9 of 10, 6 and 15 of 20
        assertInterval(5.5, 2, 9, PairedStats.medianInterval(shuffled(10, 5)));
        assertInterval(10.5, 6, 15, PairedStats.medianIntervalOrExtremes(shuffled(20, 6)));
        assertEquals(5.5, PairedStats.median(shuffled(10, 5)), 0.0);
        // ties: 1 2 3 5 5 5 5 5 5 5 7 9, ranks 3 and 10 of 12
        assertInterval(5, 3, 5, PairedStats.medianInterval(new double[] {5, 1, 5, 5, 3, 5, 7, 5, 5, 2, 9, 5}));
        assertInterval(2, 2, 2, PairedStats.medianIntervalOrExtremes(new double[] {2, 2, 2, 2, 2, 2, 2}));
        // too few values for 95 %: NaN ends, or the extremes
        PairedStats.Interval five = PairedStats.medianInterval(shuffled(5, 3));
        assertEquals(3, five.median(), 0.0);
        assertTrue(Double.isNaN(five.low()) && Double.isNaN(five.high()));
        assertInterval(3, 1, 5, PairedStats.medianIntervalOrExtremes(shuffled(5, 3)));
        assertInterval(2.5, 1, 4, PairedStats.medianIntervalOrExtremes(new double[] {4, 1, 3, 2}));
        assertInterval(1, 1, 1, PairedStats.medianIntervalOrExtremes(new double[] {1}));
        assertTrue(Double.isNaN(PairedStats.median(new double[0])));
        assertThrows(IllegalArgumentException.class, () -> PairedStats.medianIntervalOrExtremes(new double[0]));
        // the values given are left as they were
        double[] x = {3, 1, 2};
        PairedStats.medianIntervalOrExtremes(x);
        assertArrayEquals(new double[] {3, 1, 2}, x, 0.0);
    }

    @Test
    void theIntervalOrExtremesCoversTheMedianAboutNineteenTimesInTwenty() {
        Random r = new Random(7);
        int covered = 0;
        int trials = 4000;
        for (int t = 0; t < trials; t++) {
            double[] x = new double[21];
            for (int i = 0; i < x.length; i++) {
                x[i] = Math.exp(r.nextGaussian()); // lognormal: its median is 1
            }
            PairedStats.Interval ci = PairedStats.medianIntervalOrExtremes(x);
            if (ci.low() <= 1 && 1 <= ci.high()) {
                covered++;
            }
        }
        // the exact coverage at ranks 6 and 16 of 21 is 97.3%
        assertEquals(0.973, (double) covered / trials, 0.01);
    }

    @Test
    void lowerRanksAreTheBinomialOnes() {
        // P(B <= k) for B ~ Binomial(n, 1/2), computed by summing the terms exactly as fractions of 2^n
        for (int n = 1; n <= 60; n++) {
            int expected = 0;
            java.math.BigInteger total = java.math.BigInteger.ONE.shiftLeft(n);
            java.math.BigInteger cumulative = java.math.BigInteger.ZERO;
            java.math.BigInteger choose = java.math.BigInteger.ONE;
            for (int k = 0; k <= n; k++) {
                cumulative = cumulative.add(choose);
                // cumulative / total <= 0.025  <=>  40 * cumulative <= total
                if (cumulative.multiply(java.math.BigInteger.valueOf(40)).compareTo(total) <= 0) {
                    expected = k + 1;
                } else {
                    break;
                }
                choose = choose.multiply(java.math.BigInteger.valueOf(n - k)).divide(java.math.BigInteger.valueOf(k + 1));
            }
            assertEquals(expected, PairedStats.lowerRank(n), "n = " + n);
        }
        // the tabulated ranks: x(2)..x(9) for 10 values, x(40)..x(61) for 100, none below 6 values
        assertEquals(2, PairedStats.lowerRank(10));
        assertEquals(40, PairedStats.lowerRank(100));
        assertEquals(0, PairedStats.lowerRank(5));
        assertEquals(1, PairedStats.lowerRank(6));
    }

    @Test
    void theIntervalIsTheOrderStatisticsAroundTheMedian() {
        Random r = new Random(7);
        for (int n : new int[] {6, 7, 31, 100, 401}) {
            double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = r.nextGaussian() * 3 + 1;
            }
            double[] sorted = d.clone();
            Arrays.sort(sorted);
            PairedStats.Interval iv = PairedStats.medianInterval(d);
            double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            assertEquals(median, iv.median(), 0.0);
            int l = PairedStats.lowerRank(n);
            assertEquals(sorted[l - 1], iv.low(), 0.0);
            assertEquals(sorted[n - l], iv.high(), 0.0);
            assertTrue(iv.low() <= iv.median() && iv.median() <= iv.high());
        }
        PairedStats.Interval few = PairedStats.medianInterval(new double[] {3, 1, 2});
        assertEquals(2, few.median(), 0.0);
        assertTrue(Double.isNaN(few.low()) && Double.isNaN(few.high()));
    }

    @Test
    void theIntervalCoversTheTrueMedianAtLeastNinetyFivePercentOfTheTime() {
        // skewed differences, as launch times are: a shifted exponential, true median 2 + ln 2
        Random r = new Random(11);
        double truth = 2 + Math.log(2);
        int covered = 0;
        int trials = 4000;
        for (int t = 0; t < trials; t++) {
            double[] d = new double[61];
            for (int i = 0; i < d.length; i++) {
                d[i] = 2 - Math.log(1 - r.nextDouble());
            }
            PairedStats.Interval iv = PairedStats.medianInterval(d);
            covered += iv.low() <= truth && truth <= iv.high() ? 1 : 0;
        }
        double coverage = (double) covered / trials;
        // the exact level of this interval for 61 values is about 0.973; 4000 trials put it within about 0.01
        assertTrue(coverage >= 0.95 && coverage <= 0.99, "coverage " + coverage);
    }

    @Test
    void blockMediansAndDifferencesMatchPlainComputations() {
        Random r = new Random(3);
        long[] nanos = new long[50];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = 10_000 + r.nextInt(5000);
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        assertEquals((sorted[24] + sorted[25]) / 2.0, PairedStats.median(nanos.clone(), 50), 0.0);
        long[] first49 = Arrays.copyOf(nanos, 49);
        Arrays.sort(first49);
        assertEquals(first49[24], PairedStats.median(Arrays.copyOf(nanos, 50), 49), 0.0);
        double[] a = {5, 7, 9.5};
        double[] b = {1, 7.5, 2};
        assertArrayEquals(new double[] {4, -0.5, 7.5}, PairedStats.minus(a, b), 0.0);
        assertEquals(7, PairedStats.mean(new double[] {5, 7, 9}), 0.0);
    }

    @Test
    void roundOrdersArePermutationsAndVary() {
        Random r = new Random(20261124L);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            int[] o = PairedStats.order(5, r);
            int[] s = o.clone();
            Arrays.sort(s);
            assertArrayEquals(new int[] {0, 1, 2, 3, 4}, s);
            seen.add(Arrays.toString(o));
        }
        // 120 orders exist; 200 draws see most of them
        assertTrue(seen.size() > 60, "orders seen: " + seen.size());
    }
}
