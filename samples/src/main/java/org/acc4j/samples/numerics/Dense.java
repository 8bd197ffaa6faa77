package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * A dense matrix class written the way Java linear-algebra libraries are: the elements in a private {@code double[][]}
 * field, methods that read another matrix's elements through its field ({@code b.a[i][j]}) and return a new matrix,
 * and static routines over row-major {@code double[]} storage that take their matrices as arguments
 * ({@code x.data[i * x.cols + j]}). Nothing for acc4j but {@code @Kernels}: a kernel reads the array and primitive
 * fields of a parameter's object when the call starts, as it reads {@code this}'s.
 *
 * <p>Run: {@code java Dense [n]} (default 96): computes {@code C = A B}, {@code S = A + B}, {@code D = A - B},
 * {@code T = (A B)^T}, {@code 2 A} and the infinity norm of {@code C}, then the same product on row-major storage and
 * {@code D + 0.5 C} there; verifies {@code (A B)^T = B^T A^T} and {@code (A + B)^T = A^T + B^T} bit for bit,
 * {@code (A + B) - B} against {@code A} within rounding, and the row-major results against the others bit for bit.
 */
public class Dense {
    private final double[][] a;
    private final int rows;
    private final int cols;

    public Dense(int rows, int cols) {
        this.rows = rows;
        this.cols = cols;
        this.a = new double[rows][cols];
    }

    /** A matrix of random values from {@code r}, in [-1, 1). */
    public static Dense random(int rows, int cols, Random r) {
        Dense m = new Dense(rows, cols);
        for (double[] row : m.a) {
            for (int j = 0; j < cols; j++) {
                row[j] = 2 * r.nextDouble() - 1;
            }
        }
        return m;
    }

    public double[][] array() {
        return a;
    }

    /** {@code this * b}. */
    @Kernels
    public Dense times(Dense b) {
        if (b.rows != cols) {
            throw new IllegalArgumentException("inner dimensions differ: " + cols + " and " + b.rows);
        }
        Dense x = new Dense(rows, b.cols);
        double[][] c = x.a;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < b.cols; j++) {
                double s = 0;
                for (int k = 0; k < cols; k++) {
                    s += a[i][k] * b.a[k][j];
                }
                c[i][j] = s;
            }
        }
        return x;
    }

    /** {@code this + b}. */
    @Kernels
    public Dense plus(Dense b) {
        Dense x = new Dense(rows, cols);
        double[][] c = x.a;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                c[i][j] = a[i][j] + b.a[i][j];
            }
        }
        return x;
    }

    /** {@code this - b}. */
    @Kernels
    public Dense minus(Dense b) {
        Dense x = new Dense(rows, cols);
        double[][] c = x.a;
        for (int i = 0; i < rows; i++) {
            double[] ai = a[i];
            double[] bi = b.a[i];
            for (int j = 0; j < cols; j++) {
                c[i][j] = ai[j] - bi[j];
            }
        }
        return x;
    }

    /** {@code s * this}. */
    @Kernels
    public Dense scale(double s) {
        Dense x = new Dense(rows, cols);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                x.a[i][j] = s * a[i][j];
            }
        }
        return x;
    }

    /** The transpose. */
    @Kernels
    public Dense transpose() {
        Dense x = new Dense(cols, rows);
        double[][] c = x.a;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                c[j][i] = a[i][j];
            }
        }
        return x;
    }

    /** The largest row sum of absolute values. */
    @Kernels
    public double normInf() {
        double f = 0;
        for (int i = 0; i < rows; i++) {
            double s = 0;
            for (int j = 0; j < cols; j++) {
                s += Math.abs(a[i][j]);
            }
            f = Math.max(f, s);
        }
        return f;
    }

    /** The largest |this(i, j) - b(i, j)|. */
    @Kernels
    public double maxDifference(Dense b) {
        double d = 0;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                d = Math.max(d, Math.abs(a[i][j] - b.a[i][j]));
            }
        }
        return d;
    }

    /** Row-major storage: element (i, j) at {@code data[i * cols + j]}. */
    public static final class Flat {
        public final double[] data;
        public final int rows;
        public final int cols;

        public Flat(int rows, int cols) {
            this.rows = rows;
            this.cols = cols;
            this.data = new double[rows * cols];
        }

        public static Flat of(Dense m) {
            Flat f = new Flat(m.rows, m.cols);
            for (int i = 0; i < m.rows; i++) {
                System.arraycopy(m.a[i], 0, f.data, i * m.cols, m.cols);
            }
            return f;
        }
    }

    /** {@code c = a b} on row-major storage. */
    @Kernels
    public static void mult(Flat a, Flat b, Flat c) {
        if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols) {
            throw new IllegalArgumentException("dimensions differ");
        }
        for (int i = 0; i < a.rows; i++) {
            for (int j = 0; j < b.cols; j++) {
                double s = 0;
                for (int k = 0; k < a.cols; k++) {
                    s += a.data[i * a.cols + k] * b.data[k * b.cols + j];
                }
                c.data[i * c.cols + j] = s;
            }
        }
    }

    /** {@code y += alpha x} on row-major storage of the same shape. */
    @Kernels
    public static void addScaled(Flat y, double alpha, Flat x) {
        for (int i = 0; i < y.data.length; i++) {
            y.data[i] += alpha * x.data[i];
        }
    }

    /** Null when the results satisfy the identities the class comment names. */
    static String verify(Dense a, Dense b, Dense c, Dense s, Dense d, Dense t, Flat fc, Flat fy) {
        Dense bt = b.transpose();
        Dense at = a.transpose();
        if (t.maxDifference(bt.times(at)) != 0) {
            return "(A B)^T differs from B^T A^T";
        }
        if (s.transpose().maxDifference(at.plus(bt)) != 0) {
            return "(A + B)^T differs from A^T + B^T";
        }
        double e = s.minus(b).maxDifference(a);
        if (!(e <= 2 * Math.ulp(2.0))) {
            return "(A + B) - B differs from A by " + e;
        }
        for (int i = 0; i < c.rows; i++) {
            for (int j = 0; j < c.cols; j++) {
                if (Double.doubleToRawLongBits(fc.data[i * c.cols + j]) != Double.doubleToRawLongBits(c.a[i][j])) {
                    return "the row-major product differs from the double[][] one at (" + i + ", " + j + ")";
                }
                double want = d.a[i][j] + 0.5 * c.a[i][j];
                if (Double.doubleToRawLongBits(fy.data[i * c.cols + j]) != Double.doubleToRawLongBits(want)) {
                    return "y += 0.5 C differs at (" + i + ", " + j + ")";
                }
            }
        }
        return null;
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 96);
        Report.title("Dense", n + " x " + n);
        Random r = new Random(29);
        Dense a = random(n, n, r);
        Dense b = random(n, n, r);
        long t0 = System.nanoTime();
        Dense c = a.times(b);
        Dense s = a.plus(b);
        Dense d = a.minus(b);
        Dense t = c.transpose();
        Dense twice = a.scale(2.0);
        double normInf = c.normInf();
        Flat fa = Flat.of(a);
        Flat fb = Flat.of(b);
        Flat fc = new Flat(n, n);
        mult(fa, fb, fc);
        Flat fy = Flat.of(d);
        addScaled(fy, 0.5, fc);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        Report.checksum(new Checksum().add(c.a).add(s.a).add(d.a).add(t.a).add(twice.a).add(normInf).add(fc.data)
                .add(fy.data));
        Report.result("normInf", normInf);
        System.out.printf("  |A B|_inf = %.6f, time: %.3f s%n", normInf, seconds);
        Report.verification(verify(a, b, c, s, d, t, fc, fy));
    }
}
