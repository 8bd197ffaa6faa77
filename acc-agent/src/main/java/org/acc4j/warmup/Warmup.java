package org.acc4j.warmup;

import org.acc4j.Kernels;

/**
 * The call the agent makes once on the runtime's start-up thread, right after CUDA has started, so that a JVM's
 * first real {@code @Kernels} call does not pay for loading and first running the runtime's call path (its classes,
 * the launch plan's evaluators, the first transfers and the first launch: about 50 ms in a fresh JVM, against 2–5 ms
 * for a method's first call once they are loaded). It is an ordinary {@code @Kernels} method, rewritten by the agent
 * as any other, so it takes exactly the path an application's first call takes. Its compile report, profile and
 * messages are not shown (the runtime keeps them off this thread), and {@code ACC4J_WARMUP=off} turns it off.
 *
 * <p>The class is not in a package the agent skips ({@code org.acc4j.agent}, {@code org.acc4j.runtime}, ...): it must
 * be rewritten to warm anything.
 */
public final class Warmup {
    /** Elements of the warm-up arrays: enough for a grid of several blocks, far below any tuning threshold. */
    static final int N = 4096;

    private Warmup() {
    }

    /** One nest that writes an array and one that counts into an integer reduction, as a typical first call has. */
    @Kernels
    static int touch(double[] a, double[] b, double s, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i] * s + i;
        }
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (b[i] > 0.5 * n) {
                count++;
            }
        }
        return count;
    }

    /**
     * Runs {@link #touch} once on fixed inputs and checks every element and the count against the same arithmetic in
     * plain Java; false if anything differs (the caller says so).
     */
    public static boolean run() {
        int n = N;
        double[] a = new double[n];
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = (i * 7919 % n) / (double) n;
        }
        double s = 3.0;
        int count = touch(a, b, s, n);
        int expected = 0;
        for (int i = 0; i < n; i++) {
            double bi = a[i] * s + i;
            if (b[i] != bi) {
                return false;
            }
            expected += bi > 0.5 * n ? 1 : 0;
        }
        return count == expected;
    }
}
