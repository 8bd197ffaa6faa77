package org.acc4j.samples;

import java.util.Arrays;

/**
 * The statistics of the timing harnesses: medians, and the median of paired differences or ratios with a
 * distribution-free 95 % interval.
 *
 * <p>The interval is the one from order statistics: for {@code n} values sorted, the median of their distribution
 * lies between the {@code l}-th and the {@code (n + 1 - l)}-th with probability at least 95 %, where {@code l} is the
 * largest rank with {@code P(B < l) <= 2.5 %} for {@code B} binomial with {@code n} trials of one half (the count of
 * values below the true median). It assumes only that the values are independent draws of one distribution, which
 * shuffling or interleaving the order of what is timed within each round helps keep true. Below 6 values no pair of
 * order statistics reaches 95 %: {@link #medianInterval} then gives NaN ends, {@link #medianIntervalOrExtremes} the
 * smallest and the largest value.
 */
public final class PairedStats {
    private PairedStats() {
    }

    /** A median with its 95 % interval. */
    public record Interval(double median, double low, double high) {
    }

    /** The median of {@code values} (the mean of the two middle ones for an even count); NaN for none. */
    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** The median of the first {@code count} of {@code nanos}, in nanoseconds; {@code nanos} is sorted in place. */
    public static double median(long[] nanos, int count) {
        Arrays.sort(nanos, 0, count);
        return count % 2 == 1 ? nanos[count / 2] : (nanos[count / 2 - 1] + nanos[count / 2]) / 2.0;
    }

    /**
     * The 1-based rank {@code l} of the lower end of the 95 % interval of a median of {@code n} values: the largest
     * with {@code P(B <= l - 1) <= 0.025}, {@code B ~ Binomial(n, 1/2)}; 0 when even the extremes do not reach 95 %
     * (fewer than 6 values).
     */
    public static int lowerRank(int n) {
        double cumulative = 0;
        int l = 0;
        for (int k = 0; k <= n; k++) {
            cumulative += Math.exp(logChoose(n, k) - n * Math.log(2));
            // P(B <= k) <= 0.025: the interval [x(k+1), x(n-k)] still holds the median 95 % of the time
            if (cumulative <= 0.025 + 1e-12) {
                l = k + 1;
            } else {
                break;
            }
        }
        return l;
    }

    private static double logChoose(int n, int k) {
        double s = 0;
        for (int i = 1; i <= k; i++) {
            s += Math.log(n - k + i) - Math.log(i);
        }
        return s;
    }

    /**
     * The median of {@code differences} with its distribution-free 95 % interval ({@code [x(l), x(n + 1 - l)]}); the
     * interval is the whole range, marked by NaN ends, when there are too few values for one.
     */
    public static Interval medianInterval(double[] differences) {
        double[] s = differences.clone();
        Arrays.sort(s);
        int n = s.length;
        int l = lowerRank(n);
        double m = median(s);
        if (l == 0) {
            return new Interval(m, Double.NaN, Double.NaN);
        }
        return new Interval(m, s[l - 1], s[n - l]);
    }

    /**
     * The median of {@code values} with its 95 % interval as {@link #medianInterval} gives it, or with the smallest
     * and the largest value as its ends when there are too few values for one (fewer than 6).
     */
    public static Interval medianIntervalOrExtremes(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values to take a median of");
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        int l = Math.max(1, lowerRank(n));
        return new Interval(median(s), s[l - 1], s[n - l]);
    }

    /** The mean of {@code values}. */
    public static double mean(double[] values) {
        double t = 0;
        for (double v : values) {
            t += v;
        }
        return t / values.length;
    }

    /** Element-wise {@code a[i] - b[i]}. */
    public static double[] minus(double[] a, double[] b) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    /** A shuffle of {@code 0..n-1} drawn from {@code random} (Fisher and Yates). */
    public static int[] order(int n, java.util.Random random) {
        int[] o = new int[n];
        for (int i = 0; i < n; i++) {
            o[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
        return o;
    }
}
