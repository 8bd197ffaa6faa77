package org.acc4j.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The chunking harness's statistics: the median, and the distribution-free 95% interval of the median at the order
 * statistics the binomial distribution gives (ranks 6 and 16 of 21, 10 and 22 of 31, the extremes of 5), whatever
 * the order of the values; and its coverage on random samples near 95%.
 */
class ChunkingHarnessTest {
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

    @Test
    void theIntervalIsAtTheBinomialRanks() {
        assertArrayEquals(new double[] {6, 16}, ChunkingHarness.medianInterval(shuffled(21, 1)));
        assertArrayEquals(new double[] {10, 22}, ChunkingHarness.medianInterval(shuffled(31, 2)));
        assertArrayEquals(new double[] {1, 5}, ChunkingHarness.medianInterval(shuffled(5, 3)));
        assertArrayEquals(new double[] {1, 1}, ChunkingHarness.medianInterval(new double[] {1}));
        assertEquals(11, ChunkingHarness.median(shuffled(21, 4)));
        assertEquals(5.5, ChunkingHarness.median(shuffled(10, 5)));
    }

    @Test
    void theIntervalCoversTheMedianAboutNineteenTimesInTwenty() {
        Random r = new Random(7);
        int covered = 0;
        int trials = 4000;
        for (int t = 0; t < trials; t++) {
            double[] x = new double[21];
            for (int i = 0; i < x.length; i++) {
                x[i] = Math.exp(r.nextGaussian()); // lognormal: its median is 1
            }
            double[] ci = ChunkingHarness.medianInterval(x);
            if (ci[0] <= 1 && 1 <= ci[1]) {
                covered++;
            }
        }
        // the exact coverage at ranks 6 and 16 of 21 is 97.3%
        double rate = (double) covered / trials;
        assertEquals(0.973, rate, 0.01);
    }
}
