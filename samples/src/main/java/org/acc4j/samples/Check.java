package org.acc4j.samples;

import org.acc4j.Acc;

/** What the samples share: comparing with plain Java, timing, and printing a result table. */
final class Check {
    private Check() {
    }

    /** Compares every element bit for bit; prints the first mismatch and returns false on any. */
    static boolean same(String what, double[] expected, double[] actual) {
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToLongBits(expected[i]) != Double.doubleToLongBits(actual[i])) {
                System.out.printf("%s: MISMATCH at %d: expected %s, got %s%n", what, i, expected[i], actual[i]);
                return false;
            }
        }
        return true;
    }

    static boolean same(String what, float[] expected, float[] actual) {
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                System.out.printf("%s: MISMATCH at %d: expected %s, got %s%n", what, i, expected[i], actual[i]);
                return false;
            }
        }
        return true;
    }

    static void header(String name, long n) {
        System.out.printf("%s, n = %d, running on: %s%s%n", name, n, Acc.deviceName(),
                Acc.onDevice() ? "" : " (plain Java: start with -javaagent:acc.jar on a machine with a CUDA GPU to offload)");
    }

    /** Median time of {@code reps} runs in milliseconds. */
    static double medianMillis(int reps, Runnable r) {
        double[] t = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            r.run();
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        java.util.Arrays.sort(t);
        return t[reps / 2];
    }

    static void row(String mode, double ms, double bytes) {
        System.out.printf("  %-44s %10.3f ms %10.1f GB/s%n", mode, ms, bytes / ms / 1e6);
    }
}
