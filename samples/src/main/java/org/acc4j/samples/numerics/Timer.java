package org.acc4j.samples.numerics;

import java.util.Arrays;

/**
 * Numbered interval timers, as the NAS Parallel Benchmarks keep them: {@code start(n)} and {@code stop(n)} add the
 * time in between to timer {@code n}; {@code read(n)} gives the total in seconds.
 */
public class Timer {
    private final double[] elapsed;
    private final long[] started;

    public Timer(int count) {
        elapsed = new double[count];
        started = new long[count];
    }

    public void start(int n) {
        started[n] = System.nanoTime();
    }

    public void stop(int n) {
        elapsed[n] += (System.nanoTime() - started[n]) * 1.0e-9;
    }

    public double read(int n) {
        return elapsed[n];
    }

    public void reset(int n) {
        elapsed[n] = 0.0;
    }

    public void resetAll() {
        Arrays.fill(elapsed, 0.0);
    }
}
