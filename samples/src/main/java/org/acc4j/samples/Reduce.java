package org.acc4j.samples;

import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Reductions: every OpenACC operator on {@code int}, {@code long}, {@code float}, {@code double} and
 * {@code boolean}, found without a clause (as the compiler's report says) or named in one, over a single loop,
 * a 2D nest, a collapsed nest and a gang loop with a vector loop inside, and a result used by a later loop.
 * Each kernel returns its result, as user code does.
 */
public final class Reduce {
    private Reduce() {
    }

    @Kernels
    public static double dot(double[] a, double[] b, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    @Kernels
    public static double maxNorm(double[] a, int n) {
        double m = 0;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, Math.abs(a[i]));
        }
        return m;
    }

    @Kernels
    public static float minFloat(float[] a, int n) {
        float m = Float.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            m = Math.min(a[i], m);
        }
        return m;
    }

    @Kernels
    public static float sumFloat(float[] a, int n) {
        float s = 1.5f;
        for (int i = 0; i < n; i++) {
            s -= a[i];
        }
        return s;
    }

    @Kernels
    public static double productDouble(double[] a, int n) {
        double p = 1;
        for (int i = 0; i < n; i++) {
            p *= 1 + a[i] * 1e-3;
        }
        return p;
    }

    /** Wraps past Integer.MAX_VALUE, as Java does. */
    @Kernels
    public static int sumInt(int[] a, int n) {
        int s = 7;
        for (int i = 0; i < n; i++) {
            s += a[i];
        }
        return s;
    }

    @Kernels
    public static long productLong(long[] a, int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= a[i] | 1;
        }
        return p;
    }

    @Kernels
    public static long maxLong(long[] a, int n) {
        long m = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, a[i]);
        }
        return m;
    }

    @Kernels
    public static int minInt(int[] a, int n) {
        int m = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            m = Math.min(m, a[i] >> 3);
        }
        return m;
    }

    @Kernels
    public static int bitsInt(int[] a, int n) {
        int and = -1;
        int or = 0;
        int xor = 0;
        for (int i = 0; i < n; i++) {
            and &= a[i] | 0x10101;
            or |= a[i] & 0x7F00;
            xor ^= a[i];
        }
        return and ^ (or << 1) ^ (xor * 31);
    }

    @Kernels
    public static long xorLong(long[] a, int n) {
        long x = 0;
        for (int i = 0; i < n; i++) {
            x ^= a[i] * 0x9E3779B97F4A7C15L;
        }
        return x;
    }

    /** {@code &&} and {@code ||} over booleans, named in the clause. */
    @Kernels
    public static int allAndAny(double[] a, double limit, int n) {
        boolean all = true;
        boolean any = false;
        for (@Loop(gang = Loop.AUTO, vector = 128, reduction = "&&:all, ||:any") int i = 0; i < n; i++) {
            all = all && a[i] < limit;
            any = any || a[i] > limit;
        }
        return (all ? 1 : 0) + (any ? 2 : 0);
    }

    /** A count: the update sits in an if. */
    @Kernels
    public static int countAbove(double[] a, double t, int n) {
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (a[i] > t) {
                c++;
            }
        }
        return c;
    }

    /** The sum of a matrix: both loops of the nest are parallel and the sum runs over both. */
    @Kernels
    public static double matrixSum(double[] a, int rows, int cols) {
        double s = 0;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                s += a[i * cols + j];
            }
        }
        return s;
    }

    @Kernels
    public static double matrixSum2D(double[][] a, int rows, int cols) {
        double s = 0;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                s += a[i][j];
            }
        }
        return s;
    }

    @Kernels
    public static long collapsedSum(int[] a, int rows, int cols) {
        long s = 0;
        for (@Loop(gang = Loop.AUTO, vector = 256, collapse = 2) int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                s += a[i * cols + j];
            }
        }
        return s;
    }

    /** At gang level, with a vector loop inside. */
    @Kernels
    public static double gangVector(double[] a, int rows, int cols) {
        double s = 0;
        for (@Loop(gang = Loop.AUTO, reduction = "+:s") int i = 0; i < rows; i++) {
            for (@Loop(vector = 64) int j = 0; j < cols; j++) {
                s += a[i * cols + j] * (i + 1);
            }
        }
        return s;
    }

    /** A sequential inner accumulation stays a private per-thread sum; the outer loop reduces the row maxima. */
    @Kernels
    public static double maxRowSum(double[] a, int rows, int cols) {
        double best = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < rows; i++) {
            double row = 0;
            for (int j = 0; j < cols; j++) {
                row += Math.abs(a[i * cols + j]);
            }
            best = Math.max(best, row);
        }
        return best;
    }

    /** A reduction's result used by the next loop (normalise a vector in place), and returned. */
    @Kernels
    public static double normalize(double[] a, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * a[i];
        }
        double norm = Math.sqrt(s);
        double inv = norm > 0 ? 1 / norm : 0;
        for (int i = 0; i < n; i++) {
            a[i] *= inv;
        }
        return norm;
    }
}
