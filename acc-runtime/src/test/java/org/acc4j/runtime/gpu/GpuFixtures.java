package org.acc4j.runtime.gpu;

import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;
import org.acc4j.templates.math.AccMath;

/** Kernels run on the GPU by {@link OffloadGpuTest} and, unchanged, as plain Java for the reference. */
public final class GpuFixtures {
    double[] field;
    static float[] staticField;
    int scale = 3;

    /** Inlined into {@link #withCalls}: a private method with two returns. */
    private static double smooth(double x) {
        if (x < 0) {
            return -x * 0.5;
        }
        return x * x;
    }

    /** Another class's static method, read through the caller's class loader and inlined. */
    static final class Helpers {
        private Helpers() {
        }

        static double blend(double a, double b, int i) {
            return (i & 1) == 0 ? 0.75 * a + 0.25 * b : 0.25 * a + 0.75 * b;
        }
    }

    @Kernels
    static void withCalls(double[] out, double[] x, int n) {
        for (int i = 1; i < n - 1; i++) {
            out[i] = smooth(x[i]) + Helpers.blend(x[i - 1], x[i + 1], i);
        }
    }

    @Kernels
    static void vectorAdd(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    @Kernels
    static void saxpy(float alpha, float[] x, float[] y, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 256) int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    @Kernels
    @Data(copyin = "b", copyout = "a")
    static void shifted(long[] a, long[] b, int lo, int hi) {
        for (@Loop(gang = 16, vector = 128) int i = lo; i < hi; i++) {
            a[i - lo] = b[i] * 3L - (b[i] / 7L) + (b[i] % 5L) + (b[i] << (i & 70)) + (b[i] >>> 3) - (b[i] >> 60);
        }
    }

    @Kernels
    static void intOps(int[] out, int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            int d = x[i] / y[i];
            int m = x[i] % y[i];
            if (x[i] < y[i] && d != 0 || m > 3) {
                out[i] = d - m * 31 + (x[i] << y[i]) + (x[i] >> 3) + (y[i] >>> 1);
            } else {
                out[i] = d * m + i ^ (x[i] & 0xff0) | (byte) x[i] + (short) y[i] + (char) x[i];
            }
        }
    }

    @Kernels
    static void floats(double[] out, double[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            double v;
            if (x[i] < y[i]) {
                v = x[i] / y[i];
            } else if (x[i] >= 0.5 || x[i] != x[i]) {
                v = (float) x[i] * y[i] - 1.5;
            } else {
                v = (int) (x[i] * 1e10) + (long) (y[i] * 1e20f);
            }
            out[i] = v;
        }
    }

    @Kernels
    static void downward(int[] a, int n) {
        for (int i = n - 1; i >= 0; i -= 3) {
            a[i] = a[i] * 7 + 1;
        }
    }

    @Kernels
    static void rowSums(double[] c, double[] a, int n, int m) {
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < m; k++) {
                s = s + a[i * m + k];
            }
            c[i] = s;
        }
    }

    /** Writes only the interior: the implicit copyout must not clobber the two ends. */
    @Kernels
    static void interior(double[] a, double[] b, int n) {
        for (int i = 1; i < n - 1; i++) {
            a[i] = 0.5 * (b[i - 1] + b[i + 1]);
        }
    }

    @Kernels
    void fields(int n) {
        for (int i = 0; i < n; i++) {
            field[i] = field[i] * scale + staticField[i];
        }
    }

    @Kernels
    static void outOfBounds(double[] a, int[] idx, int n) {
        for (@Loop(independent = true) int i = 0; i < n; i++) {
            a[idx[i]] = i;
        }
    }

    @Kernels
    static void divide(int[] out, int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = x[i] / y[i];
        }
    }

    @Kernels
    static void unsupported(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = Math.IEEEremainder(a[i], 3.0);
        }
    }

    /** Rows of a rank-2 array, for the Acc routines on double[][]. */
    @Kernels
    static void scaleRows(double[][] a, int rows, int cols) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                a[i][j] = a[i][j] * 2 + i;
            }
        }
    }

    /** Math's transcendental functions, in double and (widened and rounded back) in float. */
    @Kernels
    static void transcendental(double[] out, float[] f, double[] x, int n) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            out[i] = Math.exp(v) + Math.log(Math.abs(v)) * Math.sin(v * 7) - Math.cos(v) / (2 + Math.tan(v))
                    + Math.pow(Math.abs(v), v * 3) + Math.tanh(v * 4);
            f[i] = (float) Math.exp(f[i]) + (float) Math.sin(f[i] * 3);
        }
    }

    /** The reference for {@link #transcendental}: the device's routines through their bit-exact Java mirror. */
    static void transcendentalReference(double[] out, float[] f, double[] x, int n) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            out[i] = AccMath.exp(v) + AccMath.log(Math.abs(v)) * AccMath.sin(v * 7) - AccMath.cos(v) / (2 + AccMath.tan(v))
                    + AccMath.pow(Math.abs(v), v * 3) + AccMath.tanh(v * 4);
            f[i] = (float) AccMath.exp(f[i]) + (float) AccMath.sin(f[i] * 3);
        }
    }

    /** An object whose array and primitive fields a kernel reads through a parameter ({@code a.v[i]}, {@code a.w}). */
    public static final class Grid {
        final double[] v;
        final double[][] rows;
        final int n;
        final double w;

        public Grid(double[] v, double[][] rows, double w) {
            this.v = v;
            this.rows = rows;
            this.n = v.length;
            this.w = w;
        }
    }

    /** Fields of three parameters' objects, one of them written, in two nests. */
    @Kernels
    static void blendGrids(Grid out, Grid a, Grid b) {
        for (int i = 0; i < out.n; i++) {
            out.v[i] = a.w * a.v[i] + b.w * b.v[i];
        }
        for (int i = 0; i < out.rows.length; i++) {
            for (int j = 0; j < a.rows[i].length; j++) {
                out.rows[i][j] = a.rows[i][j] - b.w * b.rows[i][j];
            }
        }
    }

    /** A class whose kernel calls overridable methods, on {@code this} and on a parameter. */
    public static class Waves {
        double amplitude = 1.5;

        double shape(double x, int k) {
            double y = amplitude * Math.sqrt(x + k);
            return k % 2 == 0 ? y : -y;
        }

        double weight(int k) {
            return 1.0 / (k + 1);
        }

        @Kernels
        void fill(double[] out, double[] x, Waves other) {
            for (int i = 0; i < out.length; i++) {
                double s = 0;
                for (int k = 0; k < 6; k++) {
                    s += weight(k) * shape(x[i], k) + other.weight(k);
                }
                out[i] = s;
            }
        }
    }

    /** Declares none of {@link Waves}'s methods again: its calls run on the device. */
    public static class PlainWaves extends Waves {
    }

    /** Declares {@code weight} again: a call on it, or with it as the parameter, runs as plain Java. */
    public static class OtherWaves extends PlainWaves {
        @Override
        double weight(int k) {
            return k;
        }
    }

    /** A sparse product by its nonzeros, with no hint: coloured with each element's increments in Java's order. */
    @Kernels
    static void scatterProduct(double[] y, double[] val, int[] row, int[] col, double[] x) {
        for (int i = 0; i < val.length; i++) {
            y[row[i]] += x[col[i]] * val[i];
        }
    }

    /** A histogram with no hint: integer increments, made atomic (one sum in any order). */
    @Kernels
    static void countInto(int[] bins, long[] total, int[] data, int n) {
        for (int i = 0; i < n; i++) {
            bins[data[i]]++;
            total[data[i] & 7] += data[i];
        }
    }

    /** Tallies by a bin computed from the data, one unchanging value per array: atomic adds, Java's result. */
    @Kernels
    static void tallies(double[] q, float[] weights, double[] xs, float w, int n) {
        for (int i = 0; i < n; i++) {
            double t = xs[i] * xs[i];
            if (t < 0.9) {
                int l = (int) (Math.sqrt(t) * 37);
                q[l] += 1.0;
                weights[l] += w;
            }
        }
    }

    /** A simulation holding its mesh holding its fields: kernels read them through the path. */
    static final class Sim {
        Mesh mesh = new Mesh();
    }

    static final class Mesh {
        Grid grid;
        double[] total;
        double h;
    }

    /** Reads an array two fields away from the parameter ({@code s.mesh.grid.v}) and writes one a field away. */
    @Kernels
    static void smoothMesh(Sim s, double[] out) {
        for (int i = 1; i < s.mesh.grid.v.length - 1; i++) {
            out[i] = (s.mesh.grid.v[i - 1] + s.mesh.grid.v[i + 1]) / s.mesh.h;
            s.mesh.total[i] += s.mesh.grid.v[i];
        }
    }
}
