package org.acc4j.runtime.tune;

/**
 * When a kernel is tuned and how its block shapes are compared.
 *
 * @param minLaunchNanos a kernel is tuned when the median of its first launches takes at least this long: below it,
 *                       the launch's own cost hides what the shape changes
 * @param watched        launches of the mapping's own block timed before a kernel is found too short to tune
 * @param runs           launches timed per candidate; the candidate's time is their median
 * @param margin         a candidate replaces the mapping's block only when its median is at least this fraction
 *                       faster (0.03: 3 % faster)
 * @param dropRatio      a candidate whose median so far exceeds the own block's by this factor is not launched again
 * @param budget         the tuning stops, keeping the best shape measured in full, once the candidates' launches
 *                       have taken this many of the own block's median launch times more than the own block would
 * @param frequent       a kernel found too short is tuned after all once it has been launched this many times at its
 *                       size class, if its median is at least {@code frequentNanos}: called that often, its time
 *                       matters too
 * @param frequentNanos  the least median of a frequent kernel that is tuned
 */
public record Rules(long minLaunchNanos, int watched, int runs, double margin, double dropRatio, double budget,
                    int frequent, long frequentNanos) {
    /**
     * The runtime's rules: 50 µs, 3 watched launches, 3 runs, 3 %, 1.25, 3 launch times; a kernel of 10 µs or more
     * once launched 1000 times.
     */
    public static final Rules DEFAULT = new Rules(50_000, 3, 3, 0.03, 1.25, 3.0, 1000, 10_000);

    public Rules {
        if (minLaunchNanos < 0 || watched < 1 || runs < 1 || margin < 0 || margin >= 1 || dropRatio <= 1
                || budget <= 0 || frequent < watched || frequentNanos < 0) {
            throw new IllegalArgumentException("rules out of range: " + minLaunchNanos + ", " + watched + ", " + runs
                    + ", " + margin + ", " + dropRatio + ", " + budget + ", " + frequent + ", " + frequentNanos);
        }
    }

    /** Rules without the frequent kernels' second chance. */
    public Rules(long minLaunchNanos, int watched, int runs, double margin, double dropRatio, double budget) {
        this(minLaunchNanos, watched, runs, margin, dropRatio, budget, Integer.MAX_VALUE, Long.MAX_VALUE);
    }
}
