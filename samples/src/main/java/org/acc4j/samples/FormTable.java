package org.acc4j.samples;

import java.util.Arrays;
import org.acc4j.Acc;

/**
 * The table of the time-loop samples ({@link HeatRows}, {@link HeatReads}, {@link RelaxReads}): forms of one time
 * loop, each timed by the best of several runs, with its milliseconds per step and plain Java's time over its own
 * (above 1: faster than plain Java).
 */
final class FormTable {
    private final int steps;
    private final double plainMs;

    private FormTable(int steps, double plainMs) {
        this.steps = steps;
        this.plainMs = plainMs;
    }

    /**
     * The best time in milliseconds of each of {@code forms} over {@code reps} rounds, each round running every form
     * once in the order given.
     */
    static double[] bestMillis(int reps, Runnable... forms) {
        double[] best = new double[forms.length];
        Arrays.fill(best, Double.MAX_VALUE);
        for (int rep = 0; rep < reps; rep++) {
            for (int f = 0; f < forms.length; f++) {
                long t0 = System.nanoTime();
                forms[f].run();
                // a call on present data may return once its kernel is queued: its time ends when the kernel does
                Acc.waitAll();
                best[f] = Math.min(best[f], (System.nanoTime() - t0) / 1e6);
            }
        }
        return best;
    }

    /** Prints the header of a table of loops of {@code steps} steps, plain Java's taking {@code plainMs}. */
    static FormTable header(int steps, double plainMs) {
        System.out.printf("| form | ms | ms per step | plain Java / form |%n| --- | --- | --- | --- |%n");
        return new FormTable(steps, plainMs);
    }

    /** Prints the row of {@code form}, whose loop took {@code ms}. */
    void row(String form, double ms) {
        System.out.printf("| %s | %.1f | %.3f | %.2f |%n", form, ms, ms / steps, plainMs / ms);
    }
}
