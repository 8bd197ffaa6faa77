package org.acc4j.samples.conformance;

import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Each construct the README and the guide document as working, written as a user plausibly writes it, legal odd
 * forms included (bounds in fields, loops over {@code a.length}, {@code final} locals, ternaries, casts, narrow
 * element types, helpers, {@code long} indices, negative steps). {@link Sweep} runs each against the same method
 * run as plain Java.
 */
public final class Constructs {
    /** A bound kept in a static field, as benchmark codes keep their problem size. */
    static int size = 1000;
    static double[] field = new double[1000];
    static final double SCALE = 0.5;

    private Constructs() {
    }

    // ------------------------------------------------------------------ loops and scalars

    @Kernels
    public static void saxpy(float a, float[] x, float[] y) {
        for (int i = 0; i < y.length; i++) {
            y[i] = a * x[i] + y[i];
        }
    }

    /** The bound is a static field; a final local, a ternary and a static final constant in the body. */
    @Kernels
    public static void fieldBound(double[] x, double[] y) {
        final double shift = 1.5;
        for (int i = 0; i < size; i++) {
            double v = x[i] > 0.5 ? x[i] * SCALE : x[i] + shift;
            y[i] = v;
        }
    }

    /** Casts between int, long, float and double in both directions. */
    @Kernels
    public static void casts(double[] d, float[] f, int[] k, long[] l, int n) {
        for (int i = 0; i < n; i++) {
            double x = d[i] * 1e3;
            int xi = (int) x;
            long xl = (long) (x * 1e6);
            float xf = (float) x;
            k[i] = xi + (int) xl % 7;
            l[i] = xl + (long) xf + (long) i * 3_000_000_000L;
            f[i] = (float) (xi) + xf * 0.5f;
            d[i] = (double) xf + xl / 3.0 + (double) (k[i] >> 2);
        }
    }

    /** Integer arithmetic: shifts, masks, division and remainder by a variable, wrapping products. */
    @Kernels
    public static void integers(int[] a, long[] b, int[] out, int div) {
        for (int i = 0; i < a.length; i++) {
            int x = a[i];
            int y = (x << 3) ^ (x >>> 5) | (x & 0xff);
            out[i] = y / div + y % div + x * 0x9E3779B1 + (int) (b[i] >>> 40) - (x >> 31);
            b[i] = b[i] * 6364136223846793005L + 1442695040888963407L;
        }
    }

    @Kernels
    public static void mathLibrary(double[] x, double[] out, int n) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            out[i] = Math.sqrt(v) + Math.abs(v - 0.5) + Math.min(v, 0.3) + Math.max(v, 0.7) + Math.floor(v * 10)
                    + Math.ceil(v * 10) + Math.rint(v * 10) + Math.fma(v, v, 1.0);
            out[n + i] = Math.exp(v) + Math.log(v + 1) + Math.pow(v, 1.7) + Math.sin(v) + Math.cos(v) + Math.tan(v)
                    + Math.tanh(v);
        }
    }

    @Kernels
    public static void mathFloat(float[] x, float[] out) {
        for (int i = 0; i < x.length; i++) {
            float v = x[i];
            out[i] = (float) Math.sqrt(v) + Math.abs(v - 0.5f) + Math.min(v, 0.25f) + Math.max(v, 0.75f)
                    + (float) Math.exp(v) + StrictMath.abs(-v);
        }
    }

    /** {@code Math.floorMod} and {@code floorDiv}: a periodic neighbour, as a user writes a wrap-around. */
    @Kernels
    public static void floorMod(double[] a, double[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = a[Math.floorMod(i - 1, n)] + a[Math.floorMod(i + 1, n)] + Math.floorDiv(i - 3, 4);
        }
    }

    /** floorMod and floorDiv of longs with negative operands, and a zero divisor in the last element. */
    @Kernels
    public static void floorModLong(long[] a, long[] b, long[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = Math.floorMod(a[i], b[i]) * 1000 + Math.floorDiv(a[i], b[i]);
        }
    }

    /** Double.isNaN, isInfinite, isFinite and Float's, as numerics code guards its values. */
    @Kernels
    public static void classify(double[] a, float[] f, double[] out, int[] kinds) {
        for (int i = 0; i < a.length; i++) {
            double v = a[i];
            out[i] = Double.isNaN(v) || Double.isInfinite(v) ? 0 : v;
            kinds[i] = (Double.isFinite(v) ? 1 : 0) + (Float.isNaN(f[i]) ? 2 : 0) + (Float.isInfinite(f[i]) ? 4 : 0)
                    + (Float.isFinite(f[i]) ? 8 : 0);
        }
    }

    @Kernels
    public static void narrowTypes(byte[] b, short[] s, char[] c, boolean[] z, int[] out) {
        for (int i = 0; i < b.length; i++) {
            out[i] = b[i] + s[i] * 3 + c[i] + (z[i] ? 1 : 0);
            b[i] = (byte) (b[i] * 3 + 1);
            s[i] = (short) (s[i] - c[i]);
            c[i] = (char) (c[i] + 7);
            z[i] = !z[i] || b[i] > 0;
        }
    }

    @Kernels
    public static void longIndex(double[] a, double[] b, long n) {
        for (long i = 0; i < n; i++) {
            b[(int) i] = a[(int) i] * 2 + i;
        }
    }

    /** A long index marked independent (its (int) subscripts are not linear for the dependence test). */
    @Kernels
    public static void longIndexIndependent(double[] a, double[] b, long n) {
        for (@Loop(independent = true) long i = 0; i < n; i++) {
            b[(int) i] = a[(int) i] * 2 + i;
        }
    }

    /** A long index used in arithmetic only: a sum of squares. */
    @Kernels
    public static long longIndexSum(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += i * i % 7;
        }
        return s;
    }

    @Kernels
    public static void negativeStep(double[] a, double[] b, int n) {
        for (int i = n - 1; i >= 0; i--) {
            b[i] = a[i] - i;
        }
    }

    @Kernels
    public static void stepTwo(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i += 2) {
            b[i] = a[i] + a[i + 1];
            b[i + 1] = a[i] - a[i + 1];
        }
    }

    @Kernels
    public static void stepThreeDown(int[] a, int n) {
        for (int i = n - 1; i > 0; i -= 3) {
            a[i] = a[i] * 2 + i;
        }
    }

    /** A sequential loop nested in a parallel one, with a sequential loop nested in that. */
    @Kernels
    public static void nestedSequential(double[] a, double[] out, int n, int m) {
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < m; j++) {
                double t = 1;
                for (int k = 0; k <= j; k++) {
                    t *= a[i * m + k];
                }
                s += t;
            }
            out[i] = s;
        }
    }

    /** A while loop with a compound test, as Mandelbrot is written. */
    @Kernels
    public static void whileLoop(double[] cr, double[] ci, int[] count, int max) {
        for (int p = 0; p < count.length; p++) {
            double x = 0;
            double y = 0;
            int it = 0;
            while (x * x + y * y <= 4.0 && it < max) {
                double t = x * x - y * y + cr[p];
                y = 2 * x * y + ci[p];
                x = t;
                it++;
            }
            count[p] = it;
        }
    }

    /** A do loop: digits of each number. */
    @Kernels
    public static void doLoop(int[] a, int[] digits) {
        for (int i = 0; i < a.length; i++) {
            int v = Math.abs(a[i]);
            int d = 0;
            do {
                d++;
                v /= 10;
            } while (v != 0);
            digits[i] = d;
        }
    }

    /** {@code break} and {@code continue} in a sequential inner loop: the first element above a threshold. */
    @Kernels
    public static void breakContinue(double[] a, int[] first, int n, int m) {
        for (int i = 0; i < n; i++) {
            int found = -1;
            for (int j = 0; j < m; j++) {
                if (a[i * m + j] < 0.25) {
                    continue;
                }
                if (a[i * m + j] > 0.9) {
                    found = j;
                    break;
                }
            }
            first[i] = found;
        }
    }

    /** {@code while (true)} with a break, and a labelled continue of an inner loop. */
    @Kernels
    public static void whileTrue(int[] a, int[] out) {
        for (int i = 0; i < a.length; i++) {
            int x = a[i] & 1023;
            int steps = 0;
            while (true) {
                if (x <= 1) {
                    break;
                }
                x = (x & 1) == 0 ? x >> 1 : 3 * x + 1;
                steps++;
            }
            out[i] = steps;
        }
    }

    /** A while loop as the nest's loop, with its index declared before it. */
    @Kernels
    public static void whileAsNest(double[] a, double[] b, int n) {
        int i = 0;
        while (i < n) {
            b[i] = a[i] * 3 - 1;
            i++;
        }
    }

    /** An inclusive bound, a ternary in a subscript, and a compound narrowing store. */
    @Kernels
    public static void inclusiveTernary(double[] a, double[] b, short[] s, byte[] bytes, int last) {
        for (int i = 0; i <= last; i++) {
            b[i] = a[i > 0 ? i - 1 : i] + a[i < last ? i + 1 : i];
            s[i] += 3;
            bytes[i] <<= 1;
        }
    }

    /** A labelled continue of a sequential loop inside the parallel one. */
    @Kernels
    public static void labelledContinue(int[] a, int[] out, int n, int m) {
        for (int i = 0; i < n; i++) {
            int count = 0;
            rows:
            for (int j = 0; j < m; j++) {
                for (int k = 0; k < m; k++) {
                    if (a[i * m + k] == j) {
                        continue rows;
                    }
                }
                count++;
            }
            out[i] = count;
        }
    }

    /** Casts of NaN, infinities and huge values: Java's saturating conversions. */
    @Kernels
    public static void saturatingCasts(double[] d, int[] k, long[] l, float[] f) {
        for (int i = 0; i < d.length; i++) {
            k[i] = (int) d[i];
            l[i] = (long) d[i];
            f[i] = (float) d[i];
        }
    }

    /** An int sum that wraps around. */
    @Kernels
    public static int wrappingSum(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * 65_599;
        }
        return s;
    }

    /** The index is read after the loop (its last value): the nest stays on the host, saying so. */
    @Kernels
    public static int indexAfterLoop(double[] a, double[] b, int n) {
        int i;
        for (i = 0; i < n; i++) {
            b[i] = a[i] + 1;
        }
        return i;
    }

    /** Math.round: Java's result (ties up, saturated) on every target. */
    @Kernels
    public static void mathRound(double[] a, long[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = Math.round(a[i] * 100);
        }
    }

    /** A null row of a double[][]: Java's NullPointerException. */
    @Kernels
    public static void rowSums(double[][] a, double[] out) {
        for (int i = 0; i < a.length; i++) {
            double s = 0;
            for (int j = 0; j < a[i].length; j++) {
                s += a[i][j];
            }
            out[i] = s;
        }
    }

    public static double[] nullRow(double[][] a) {
        double[] out = new double[a.length];
        a[3] = null;
        rowSums(a, out);
        return out;
    }

    /** A switch in the nest: a table of cases with a fall-through, a sparse one, and a default. */
    @Kernels
    public static void switches(int[] op, double[] a, double[] out) {
        for (int i = 0; i < op.length; i++) {
            double v = a[i];
            switch (op[i]) {
                case 0:
                    v = -v;
                    break;
                case 1:
                    v *= 2;
                    // fall through
                case 2:
                    v += 1;
                    break;
                case 3:
                    v = Math.sqrt(v);
                    break;
                default:
                    v = 0;
            }
            switch (op[i] * 1000) {
                case -7000:
                    v += 0.25;
                    break;
                case 5000:
                    v -= 0.25;
                    break;
                default:
                    break;
            }
            out[i] = v;
        }
    }

    // ------------------------------------------------------------------ @Loop clauses

    @Kernels
    public static void gangVector(double[] a, double[] b, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 128) int i = 0; i < n; i++) {
            b[i] = a[i] * a[i];
        }
    }

    @Kernels
    public static void gangWorkerVector(double[] a, double[] b, int n, int m) {
        for (@Loop(gang = 64, worker = 4) int i = 0; i < n; i++) {
            for (@Loop(vector = 32) int j = 0; j < m; j++) {
                b[i * m + j] = a[i * m + j] + i - j;
            }
        }
    }

    @Kernels
    public static void collapse2(double[][] a, double[][] b, int n, int m) {
        for (@Loop(collapse = 2) int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                b[i][j] = a[i][j] * 2 + 1;
            }
        }
    }

    @Kernels
    public static void collapse3(float[] a, float[] b, int nx, int ny, int nz) {
        for (@Loop(collapse = 3, gang = Loop.AUTO, vector = 64) int k = 0; k < nz; k++) {
            for (int j = 0; j < ny; j++) {
                for (int i = 0; i < nx; i++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = a[c] * 0.5f + k;
                }
            }
        }
    }

    /** independent on an indirect write that the user knows is a permutation. */
    @Kernels
    public static void independentScatter(double[] a, int[] perm, double[] out) {
        for (@Loop(independent = true) int i = 0; i < a.length; i++) {
            out[perm[i]] = a[i] * 3;
        }
    }

    /** seq on the outer loop of a recurrence: one device thread, Java's order. */
    @Kernels
    public static void seqRecurrence(double[] a, int n) {
        for (@Loop(seq = true) int i = 1; i < n; i++) {
            a[i] = a[i - 1] * 0.5 + a[i];
        }
    }

    @Kernels
    public static double reductionClause(double[] a, int n) {
        double s = 0;
        for (@Loop(reduction = "+:s") int i = 0; i < n; i++) {
            s += a[i];
        }
        return s;
    }

    /** A row's sum with vector on the inner loop (a vector reduction per row). */
    @Kernels
    public static void rowSumsVector(double[] a, double[] r, int n, int m) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < n; i++) {
            double s = 0;
            for (@Loop(vector = 32, reduction = "+:s") int j = 0; j < m; j++) {
                s += a[i * m + j];
            }
            r[i] = s;
        }
    }

    // ------------------------------------------------------------------ reductions

    @Kernels
    public static int sumInt(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    @Kernels
    public static long sumLong(int[] a) {
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (long) a[i] * a[i];
        }
        return s;
    }

    @Kernels
    public static double dot(double[] x, double[] y) {
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            s += x[i] * y[i];
        }
        return s;
    }

    @Kernels
    public static float sumFloat(float[] x) {
        float s = 0;
        for (int i = 0; i < x.length; i++) {
            s += x[i];
        }
        return s;
    }

    @Kernels
    public static double product(double[] x) {
        double p = 1;
        for (int i = 0; i < x.length; i++) {
            p *= 1 + x[i] * 1e-3;
        }
        return p;
    }

    @Kernels
    public static long intProductMinusAndBits(int[] a, long[] out) {
        long p = 1;
        int minus = 0;
        int and = -1;
        int or = 0;
        long xor = 0;
        for (int i = 0; i < a.length; i++) {
            p *= a[i] | 1;
            minus -= a[i];
            and &= a[i] | 0x10;
            or |= a[i] & 0x0f0f;
            xor ^= a[i] * 31L;
        }
        out[0] = minus;
        out[1] = and;
        out[2] = or;
        out[3] = xor;
        return p;
    }

    @Kernels
    public static double maxMin(double[] a, double[] out) {
        double mx = Double.NEGATIVE_INFINITY;
        double mn = Double.POSITIVE_INFINITY;
        for (int i = 0; i < a.length; i++) {
            mx = Math.max(mx, a[i]);
            mn = Math.min(mn, a[i]);
        }
        out[0] = mn;
        return mx;
    }

    @Kernels
    public static int maxMinInt(int[] a, long[] b, int[] out) {
        int mx = Integer.MIN_VALUE;
        long mn = Long.MAX_VALUE;
        for (int i = 0; i < a.length; i++) {
            mx = Math.max(mx, a[i]);
            mn = Math.min(mn, b[i]);
        }
        out[0] = (int) (mn >> 32);
        return mx;
    }

    /** A maximum written with an if, on an absolute value (NPB MG's norm). */
    @Kernels
    public static double ifMax(double[] r) {
        double max = 0;
        for (int i = 0; i < r.length; i++) {
            double t = Math.abs(r[i]);
            if (t > max) {
                max = t;
            }
        }
        return max;
    }

    @Kernels
    public static float ternaryMinFloat(float[] a) {
        float m = Float.MAX_VALUE;
        for (int i = 0; i < a.length; i++) {
            float v = a[i] * a[i];
            m = v < m ? v : m;
        }
        return m;
    }

    @Kernels
    public static boolean allAny(double[] a, boolean[] out) {
        boolean all = true;
        boolean any = false;
        for (int i = 0; i < a.length; i++) {
            all = all && a[i] >= 0;
            any = any || a[i] > 0.999;
        }
        out[0] = any;
        return all;
    }

    /** A sum and a count in one loop, and a second nest that uses the sum (two nests, a value between). */
    @Kernels
    public static double meanCentre(double[] a, double[] out) {
        double s = 0;
        int count = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i] > 0.1) {
                s += a[i];
                count++;
            }
        }
        double mean = count == 0 ? 0 : s / count;
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] - mean;
        }
        return mean;
    }

    /** Array reductions into a few elements: a histogram of 8 bins and a max per class. */
    @Kernels
    public static void arrayReduction(int[] data, int[] bins, long[] sums, double[] maxima) {
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            for (int k = 0; k < 8; k++) {
                if ((v & 7) == k) {
                    bins[k] += 1;
                }
            }
            sums[0] += v;
            sums[1] = Math.max(sums[1], v);
            maxima[0] = Math.max(maxima[0], v * 0.5);
        }
    }

    @Kernels
    public static void arrayFloatSum(double[] x, double[] moments) {
        for (@Loop(reduction = "+:moments") int i = 0; i < x.length; i++) {
            moments[0] += x[i];
            moments[1] += x[i] * x[i];
        }
    }

    // ------------------------------------------------------------------ scans

    @Kernels
    public static void scanInclusiveInt(int[] a, int[] b, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
    }

    @Kernels
    public static void scanExclusiveLong(long[] a, long[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            b[i] = s;
            s += a[i];
        }
    }

    @Kernels
    public static void scanMaxDouble(double[] a, double[] b, int n) {
        double s = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            s = Math.max(s, a[i]);
            b[i] = s;
        }
    }

    @Kernels(relaxed = true)
    public static void scanRelaxedDouble(double[] a, double[] b, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
    }

    // ------------------------------------------------------------------ private arrays

    @Kernels
    public static void privateArray(double[] a, double[] out, int n) {
        for (int i = 0; i < n; i++) {
            double[] t = new double[4];
            for (int k = 0; k < 4; k++) {
                t[k] = a[4 * i + k] * (k + 1);
            }
            double s = 0;
            for (int k = 0; k < t.length; k++) {
                s += t[k] * t[3 - k];
            }
            out[i] = s;
        }
    }

    @Kernels
    public static void privateHistogram(int[] a, int[] out, int n) {
        for (int i = 0; i < n; i++) {
            int[] h = new int[8];
            int x = a[i];
            for (int s = 0; s < 32; s += 3) {
                h[(x >>> s) & 7]++;
            }
            int best = 0;
            for (int k = 0; k < 8; k++) {
                best = Math.max(best, h[k] * 8 + k);
            }
            out[i] = best;
        }
    }

    // ------------------------------------------------------------------ two-dimensional arrays

    @Kernels
    public static void jacobi2d(double[][] u, double[][] v, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
            }
        }
    }

    @Kernels
    public static void float2d(float[][] a, float[][] b) {
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a[i].length; j++) {
                b[i][j] = a[i][j] * a[i][j] - j;
            }
        }
    }

    /** A jagged int[][] (rows of different lengths), a row held in a local. */
    @Kernels
    public static void jaggedRowSums(int[][] rows, long[] sums) {
        for (int i = 0; i < rows.length; i++) {
            int[] row = rows[i];
            long s = 0;
            for (int j = 0; j < row.length; j++) {
                s += row[j];
            }
            sums[i] = s;
        }
    }

    /** Matrix multiply over double[][] with the row of c in a local. */
    @Kernels
    public static void matmul2d(double[][] a, double[][] b, double[][] c, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    @Kernels
    public static void transpose2d(long[][] in, long[][] out, int n, int m) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                out[j][i] = in[i][j];
            }
        }
    }

    // ------------------------------------------------------------------ fields and helpers

    /** Reads and writes a static array field. */
    @Kernels
    public static void staticField(double[] x) {
        for (int i = 0; i < field.length; i++) {
            field[i] = field[i] * 0.5 + x[i];
        }
    }

    public static double[] staticFieldCase(double[] x) {
        staticField(x);
        return field;
    }

    static double weight(double x, int k) {
        return k % 2 == 0 ? x * x : Math.sqrt(Math.abs(x)) + clampHelper(x);
    }

    private static double clampHelper(double x) {
        return Math.min(1.0, Math.max(-1.0, x));
    }

    /** Static helper methods, nested two deep. */
    @Kernels
    public static void helpers(double[] a, double[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = weight(a[i], i) + clampHelper(a[i] * 3);
        }
    }

    /** A grid object whose kernels read and write its instance array fields. */
    public static class Grid {
        final int n;
        double[] cur;
        double[] next;
        double omega = 0.8;

        Grid(double[] start) {
            n = start.length;
            cur = start.clone();
            next = new double[n];
        }

        @Kernels
        void relax(int steps) {
            for (int s = 0; s < steps; s++) {
                for (int i = 1; i < n - 1; i++) {
                    next[i] = (1 - omega) * cur[i] + omega * 0.5 * (cur[i - 1] + cur[i + 1]);
                }
                next[0] = cur[0];
                next[n - 1] = cur[n - 1];
                double[] t = cur;
                cur = next;
                next = t;
            }
        }
    }

    public static double[] instanceFields(double[] start, int steps) {
        Grid g = new Grid(start);
        g.relax(steps);
        return g.cur;
    }

    /** A subclass inherits the fields. */
    public static class Scaled extends Grid {
        Scaled(double[] start) {
            super(start);
        }

        @Kernels
        void scale(double f) {
            for (int i = 0; i < n; i++) {
                cur[i] *= f;
            }
        }
    }

    public static double[] inheritedFields(double[] start, double f) {
        Scaled g = new Scaled(start);
        g.scale(f);
        g.relax(2);
        return g.cur;
    }

    // ------------------------------------------------------------------ calls, sizes, aliasing

    @Kernels
    public static void addInto(double[] x, double[] y, double[] z) {
        for (int i = 0; i < z.length; i++) {
            z[i] = x[i] + y[i];
        }
    }

    /** One method called with two sizes, then with aliased arguments (read and written the same array). */
    public static double[] twoSizesAndAliases(double[] a, double[] b) {
        double[] small = new double[17];
        double[] big = new double[a.length];
        addInto(java.util.Arrays.copyOf(a, 17), java.util.Arrays.copyOf(b, 17), small);
        addInto(a, b, big);
        addInto(a, a, a);
        addInto(b, big, b);
        double[] all = new double[17 + big.length + a.length + b.length];
        System.arraycopy(small, 0, all, 0, 17);
        System.arraycopy(big, 0, all, 17, big.length);
        System.arraycopy(a, 0, all, 17 + big.length, a.length);
        System.arraycopy(b, 0, all, 17 + big.length + a.length, b.length);
        return all;
    }

    /** A shifted in-place update through two names of one array. */
    @Kernels
    public static void shiftInPlace(double[] src, double[] dst, int n) {
        for (int i = 0; i < n; i++) {
            dst[i] = src[i + 1] * 2;
        }
    }

    public static double[] aliasedShift(double[] a) {
        shiftInPlace(a, a, a.length - 1);
        return a;
    }

    // ------------------------------------------------------------------ exceptions

    @Kernels
    public static void outOfBounds(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i + 1];
        }
    }

    @Kernels
    public static void indirectOutOfBounds(double[] a, int[] idx, double[] b) {
        for (int i = 0; i < b.length; i++) {
            b[i] = a[idx[i]];
        }
    }

    @Kernels
    public static void divideByZero(int[] a, int[] b, int[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] / b[i];
        }
    }

    @Kernels
    public static void nullArray(double[] a, double[] b) {
        for (int i = 0; i < b.length; i++) {
            b[i] = a[i];
        }
    }

    public static double[] nullArgument(double[] b) {
        nullArray(null, b);
        return b;
    }

    /** A throw inside the nest: the nest runs on the host, where Java throws it. */
    @Kernels
    public static void throwInNest(double[] a, double[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] < 0) {
                throw new IllegalArgumentException("negative at " + i);
            }
            b[i] = Math.sqrt(a[i]);
        }
    }

    // ------------------------------------------------------------------ data clauses and routines

    /** {@code create}: the device's tmp is not copied back, so the case compares b only. */
    public static double[] dataClausesCase(double[] a) {
        double[] b = new double[a.length];
        dataClauses(a, b, new double[a.length]);
        return b;
    }

    @Data(copyin = "a", copyout = "b", create = "tmp")
    @Kernels
    public static void dataClauses(double[] a, double[] b, double[] tmp) {
        for (int i = 0; i < a.length; i++) {
            tmp[i] = a[i] * 2;
        }
        for (int i = 0; i < a.length; i++) {
            b[i] = tmp[i] + 1;
        }
    }

    @Kernels
    static void scale(double[] a, double f) {
        for (int i = 0; i < a.length; i++) {
            a[i] *= f;
        }
    }

    @Data(copy = "a")
    static void scaledTwice(double[] a) {
        scale(a, 2);
        scale(a, 3);
    }

    /** Data routines around calls: copyin, present use, update host, copyout. */
    public static double[] dataRoutines(double[] a, double[] b) {
        Acc.copyin(a, b);
        scale(a, 1.5);
        Acc.updateHost(a);
        double first = a[0];
        addInto(a, b, b);
        Acc.copyout(b);
        Acc.delete(a);
        scaledTwice(a);
        double[] out = new double[a.length + b.length + 1];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        out[out.length - 1] = first;
        return out;
    }

    @Kernels(async = 1)
    static void scaleAsync(double[] a, double f) {
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] * f + 1;
        }
    }

    @Kernels(async = 2, waitOn = 1)
    static void addAsync(double[] a, double[] b) {
        for (int i = 0; i < a.length; i++) {
            b[i] += a[i];
        }
    }

    public static double[] asyncQueues(double[] a, double[] b) {
        Acc.copyin(a, b);
        scaleAsync(a, 3);
        addAsync(a, b);
        Acc.wait(2);
        Acc.updateHostAsync(1, a);
        Acc.updateHostAsync(2, b);
        Acc.waitAll();
        Acc.copyout(a, b);
        double[] out = new double[2 * a.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Kernels(defaultPresent = true)
    static void presentOnly(double[] a, double[] b) {
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i] * a[i];
        }
    }

    @Data(present = {"a", "b"})
    static void presentRegion(double[] a, double[] b) {
        presentOnly(a, b);
        scale(b, 0.5);
    }

    /** default(present) and @Data(present) on arrays made present by Acc.copyin and Acc.create. */
    public static double[] presentData(double[] a) {
        double[] b = new double[a.length];
        Acc.copyin(a);
        Acc.create(b);
        boolean both = Acc.isPresent(a) && Acc.isPresent(b);
        presentRegion(a, b);
        Acc.copyout(b);
        Acc.delete(a);
        // (after the delete, Acc.isPresent(a) is false on a device and true in plain Java, by OpenACC's host rules)
        double[] out = java.util.Arrays.copyOf(b, b.length + 1);
        out[b.length] = both ? 1 : 0;
        return out;
    }

    static boolean useDevice = true;

    @Kernels(ifField = "useDevice")
    static void ifFieldScale(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] * 2 + 1;
        }
    }

    public static double[] ifField(double[] a) {
        useDevice = true;
        ifFieldScale(a);
        useDevice = false;
        ifFieldScale(a);
        useDevice = true;
        return a;
    }

    /** The other atomic routines, their old values kept where the order does not matter. */
    @Kernels
    public static void moreAtomics(int[] data, int[] imin, long[] bits, double[] dmin, int[] flags) {
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            Acc.atomicMin(imin, v & 3, v);
            Acc.atomicXor(bits, 0, (long) v << 7);
            Acc.atomicAnd(bits, 1, ~(1L << (v & 63)));
            Acc.atomicMin(dmin, 0, v * 0.5);
            Acc.atomicCompareAndSet(flags, v % flags.length, 0, 1);
        }
    }

    @Kernels
    public static void incrementsAuto(int[] c1, int[] c2, float[] f, float[] res) {
        for (@Loop(increments = Loop.Increments.AUTO) int e = 0; e < c1.length; e++) {
            res[c1[e]] += f[e];
            res[c2[e]] -= f[e];
        }
    }

    /** One instance method on two objects whose arrays have different sizes. */
    public static double[] twoGrids(double[] a, double[] b) {
        Grid small = new Grid(java.util.Arrays.copyOf(a, 33));
        Grid big = new Grid(b);
        small.relax(3);
        big.relax(4);
        small.relax(1);
        double[] out = java.util.Arrays.copyOf(small.cur, 33 + big.cur.length);
        System.arraycopy(big.cur, 0, out, 33, big.cur.length);
        return out;
    }

    @Kernels(asyncParam = "queue")
    static void scaleOn(double[] a, double f, int queue) {
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] * f - 0.5;
        }
    }

    /** An async clause from a parameter, an update of present data, and copyoutFinalize. */
    public static double[] asyncParamAndUpdates(double[] a) {
        double[] b = a.clone();
        Acc.copyin(a);
        Acc.copyin(a);
        scaleOn(a, 2, 3);
        Acc.wait(3);
        Acc.updateHost(a);
        double first = a[1];
        a[0] = 42;
        Acc.updateDevice(a);
        scaleOn(a, 0.5, Acc.ASYNC_NOVAL);
        Acc.waitAll();
        Acc.copyoutFinalize(a);
        scaleOn(b, 3, Acc.ASYNC_SYNC);
        double[] out = java.util.Arrays.copyOf(a, a.length + b.length + 1);
        System.arraycopy(b, 0, out, a.length, b.length);
        out[out.length - 1] = first;
        return out;
    }

    @Kernels
    public static void exchangeAndVolatile(int[] data, long[] last, double[] slots) {
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            Acc.atomicWrite(slots, v % slots.length, 1.0);
            Acc.atomicExchange(last, 0, 7L);
            double seen = Acc.atomicRead(slots, (v + 1) % slots.length);
            Acc.atomicMax(last, 1, (long) (seen >= 0 ? v : -v));
        }
    }

    /** Many arrays and scalars in one nest. */
    @Kernels
    public static void manyOperands(double[] a, double[] b, double[] c, double[] d, float[] e, float[] f, int[] g,
                                    long[] h, double[] o1, double[] o2, float[] o3, long[] o4, double s, float t,
                                    int k, long m) {
        for (int i = 0; i < a.length; i++) {
            o1[i] = a[i] * s + b[i] - c[i] * d[i];
            o2[i] = Math.max(a[i], d[i]) + g[i] * 0.5 + h[i] % 7;
            o3[i] = e[i] * t + f[i] - k;
            o4[i] = h[i] * m + g[i] + k;
        }
    }

    @Kernels
    public static void atomics(int[] data, int[] bins, long[] total, double[] dmax) {
        for (int i = 0; i < data.length; i++) {
            int v = data[i];
            Acc.atomicAdd(bins, v % bins.length, 1);
            Acc.atomicAdd(total, 0, (long) v);
            Acc.atomicMax(dmax, 0, v * 0.25);
            Acc.atomicOr(bins, 0, 0);
        }
    }

    @Kernels
    public static void incrementsAtomic(int[] data, int[] bins) {
        for (@Loop(increments = Loop.Increments.ATOMIC) int i = 0; i < data.length; i++) {
            bins[data[i]]++;
        }
    }

    @Kernels
    public static void incrementsColour(int[] c1, int[] c2, double[] f, double[] res) {
        for (@Loop(increments = Loop.Increments.COLOUR) int e = 0; e < c1.length; e++) {
            res[c1[e]] += f[e];
            res[c2[e]] -= f[e];
        }
    }

    @Kernels(serial = true)
    public static void serialPrefix(double[] a, int n) {
        for (int i = 1; i < n; i++) {
            a[i] += a[i - 1];
        }
    }

    @Kernels(ifParam = "gpu")
    public static void ifClause(double[] a, double[] b, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i] * 2;
        }
    }
}
