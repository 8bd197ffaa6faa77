package org.acc4j.samples;

import java.util.Random;
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
        System.out.printf("%s, n = %d, running on: %s%s%n", name, n, Acc.deviceName(), hostNote());
    }

    /** Why the sample runs as plain Java, if it does: without the agent, or with it on a machine it cannot use. */
    static String hostNote() {
        if (Acc.onDevice()) {
            return "";
        }
        if (Acc.deviceName().contains("multicore")) {
            return " (no GPU: the acc4j agent runs the nests on the host's cores, as said above)";
        }
        return agentStarted() ? " (plain Java: the acc4j agent found no GPU to use, as said above)"
                : " (plain Java: start with -javaagent:acc.jar on a machine with a CUDA GPU to offload)";
    }

    /** Whether this JVM was started with acc4j's agent ({@code -javaagent:acc.jar}). */
    static boolean agentStarted() {
        try {
            return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(a -> a.startsWith("-javaagent:"))
                    && Class.forName("org.acc4j.agent.AccAgent", false, ClassLoader.getSystemClassLoader()) != null;
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            return false;
        }
    }

    /** Median time of {@code reps} runs in milliseconds. */
    static double medianMillis(int reps, Runnable r) {
        // warm up first (the JIT compiles the launch path, the GPU raises its clocks): at least 3 calls and 200 ms
        long start = System.nanoTime();
        for (int i = 0; i < 3 || System.nanoTime() - start < 200_000_000L; i++) {
            r.run();
        }
        Acc.waitAll();
        double[] t = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            r.run();
            // a call on present data may return once its kernel is queued: its time ends when the kernel does
            Acc.waitAll();
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        java.util.Arrays.sort(t);
        return t[reps / 2];
    }

    static void row(String mode, double ms, double bytes) {
        System.out.printf("  %-58s %10.3f ms %10.1f GB/s%n", mode, ms, bytes / ms / 1e6);
    }

    static void header(String name, String size) {
        System.out.printf("%s, %s, running on: %s%s%n", name, size, Acc.deviceName(), hostNote());
    }

    /** Like {@link #row} with a floating-point rate instead of a bandwidth. */
    static void rowFlops(String mode, double ms, double flops) {
        System.out.printf("  %-58s %10.3f ms %10.1f GFLOP/s%n", mode, ms, flops / ms / 1e6);
    }

    /** Whether kernels run on a GPU; starts the runtime so that the answer is known before the first call. */
    static boolean gpu() {
        Acc.init();
        return Acc.onDevice();
    }

    /** The {@code i}-th argument as an int, else the default. */
    static int arg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    /** {@code n} seeded values in [-1, 1). */
    static double[] random(Random random, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = random.nextDouble() * 2 - 1;
        }
        return a;
    }

    /** The rows of a flat row-major array, each a new array of {@code cols} elements. */
    static double[][] rows(double[] flat, int rows, int cols) {
        double[][] a = new double[rows][];
        for (int r = 0; r < rows; r++) {
            a[r] = java.util.Arrays.copyOfRange(flat, r * cols, (r + 1) * cols);
        }
        return a;
    }

    /** The rows one after the other. */
    static double[] flat(double[][] rows) {
        int cols = rows.length == 0 ? 0 : rows[0].length;
        double[] a = new double[rows.length * cols];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, a, r * cols, cols);
        }
        return a;
    }

    /** Compares row by row, every element bit for bit, as {@link #same(String, double[], double[])}. */
    static boolean same(String what, double[] expected, double[][] actual) {
        return same(what, expected, flat(actual));
    }

    /** Prints the verdict line; exits with status 1 on failure. */
    static void verdict(String name, boolean ok, long elements) {
        System.out.println(ok ? name + ": all " + elements + " elements match plain Java" : name + ": FAILED");
        if (!ok) {
            System.exit(1);
        }
    }
}
