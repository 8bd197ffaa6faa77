package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Sparse matrix-vector products {@code y = A x} in compressed row storage, whose rows are short and uneven, on two
 * matrices: the 5-point Laplacian of a square grid (5 entries in most rows) and one whose row lengths follow a power
 * law (most rows a few entries, a few rows thousands). Three ways, timed in the same process on data already on the
 * device:
 * <ul>
 *   <li>one thread per row ({@link #multiplyRows}): the loop as Java writes it; a {@code double} sum keeps Java's
 *       order, so acc4j runs each row in one thread and the result is Java's, bit for bit;
 *   <li>a group of lanes per row ({@link #multiplyLanes}): the same loop with {@code @Loop(vector = Loop.AUTO)} on
 *       the inner loop, which lets acc4j deal each row's entries out to 2 to 32 lanes, chosen at each launch from the
 *       mean row length, and add the lanes' sums with warp shuffles (the loop collapsing for irregular loops of
 *       Seyong Lee, Seung-Jai Min and Rudolf Eigenmann, <i>OpenMP to GPGPU: A Compiler Framework for Automatic
 *       Translation and Optimization</i>, with their run-time check that the row offsets are monotonic); the sum
 *       comes out in another order, within the bound of a reordered sum of each row;
 *   <li>a copy of as many bytes as the product moves at least ({@link #copy}), the bandwidth to compare with.
 * </ul>
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.SparseRows [rows [reps]]}
 */
public final class SparseRows {
    private SparseRows() {
    }

    /** A matrix in compressed row storage: row {@code r}'s entries are {@code rowptr[r]..rowptr[r + 1] - 1}. */
    public record Matrix(String name, int rows, int[] rowptr, int[] col, double[] val) {
        public int nnz() {
            return rowptr[rows];
        }

        /** The bytes one product moves at least: the matrix, x once and y. */
        public double bytes() {
            return 12.0 * nnz() + 4.0 * (rows + 1) + 16.0 * rows;
        }
    }

    /** The 5-point Laplacian of a {@code side} x {@code side} grid: 4 on the diagonal, -1 for each neighbour. */
    public static Matrix laplacian(int side) {
        int n = side * side;
        int[] rowptr = new int[n + 1];
        int[] col = new int[5 * n];
        double[] val = new double[5 * n];
        int k = 0;
        for (int i = 0; i < side; i++) {
            for (int j = 0; j < side; j++) {
                int r = i * side + j;
                if (i > 0) { col[k] = r - side; val[k++] = -1; }
                if (j > 0) { col[k] = r - 1; val[k++] = -1; }
                col[k] = r;
                val[k++] = 4;
                if (j < side - 1) { col[k] = r + 1; val[k++] = -1; }
                if (i < side - 1) { col[k] = r + side; val[k++] = -1; }
                rowptr[r + 1] = k;
            }
        }
        return new Matrix("5-point Laplacian " + side + " x " + side, n, rowptr, java.util.Arrays.copyOf(col, k),
                java.util.Arrays.copyOf(val, k));
    }

    /**
     * {@code rows} rows whose lengths follow a Pareto law (minimum 2, exponent 1.2, at most 4096; mean about 9), the
     * columns random, the values in [-1, 1).
     */
    public static Matrix powerLaw(int rows, long seed) {
        Random random = new Random(seed);
        int[] rowptr = new int[rows + 1];
        for (int r = 0; r < rows; r++) {
            double u = 1 - random.nextDouble();
            int len = (int) Math.min(4096, Math.floor(2 * Math.pow(u, -1 / 1.2)));
            rowptr[r + 1] = rowptr[r] + len;
        }
        int nnz = rowptr[rows];
        int[] col = new int[nnz];
        double[] val = new double[nnz];
        for (int k = 0; k < nnz; k++) {
            col[k] = random.nextInt(rows);
            val[k] = random.nextDouble() * 2 - 1;
        }
        return new Matrix("power-law rows, " + rows, rows, rowptr, col, val);
    }

    /** Plain Java, the reference. */
    public static void multiplyPlain(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y) {
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[r] = s;
        }
    }

    /** One thread per row: a {@code double} sum keeps Java's order. */
    @Kernels
    public static void multiplyRows(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y) {
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (int k = rowptr[r]; k < rowptr[r + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[r] = s;
        }
    }

    /** A group of lanes per row: the vector clause on the inner loop allows the sum's other order. */
    @Kernels
    public static void multiplyLanes(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y) {
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (@Loop(vector = Loop.AUTO) int k = rowptr[r]; k < rowptr[r + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[r] = s;
        }
    }

    /** Four lanes per row, whatever the row lengths. */
    @Kernels
    public static void multiplyLanes4(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y) {
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (@Loop(vector = 4) int k = rowptr[r]; k < rowptr[r + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[r] = s;
        }
    }

    /** A warp per row, whatever the row lengths. */
    @Kernels
    public static void multiplyWarp(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y) {
        for (int r = 0; r < n; r++) {
            double s = 0;
            for (@Loop(vector = 32) int k = rowptr[r]; k < rowptr[r + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[r] = s;
        }
    }

    @Kernels
    static void copy(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i];
        }
    }

    @Data(copyin = {"rowptr", "col", "val", "x"}, create = "y")
    static double timeRows(int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y, int reps) {
        return Check.medianMillis(reps, () -> {
            multiplyRows(n, rowptr, col, val, x, y);
            Acc.waitAll();
        });
    }

    /** {@code lanes}: 0 for the launch's choice, else 4 or 32. */
    @Data(copyin = {"rowptr", "col", "val", "x"}, create = "y")
    static double timeLanes(int lanes, int n, int[] rowptr, int[] col, double[] val, double[] x, double[] y, int reps) {
        return Check.medianMillis(reps, () -> {
            if (lanes == 0) {
                multiplyLanes(n, rowptr, col, val, x, y);
            } else if (lanes == 4) {
                multiplyLanes4(n, rowptr, col, val, x, y);
            } else {
                multiplyWarp(n, rowptr, col, val, x, y);
            }
            Acc.waitAll();
        });
    }

    @Data(copyin = "a", create = "b")
    static double timeCopy(double[] a, double[] b, int n, int reps) {
        return Check.medianMillis(reps, () -> {
            copy(a, b, n);
            Acc.waitAll();
        });
    }

    /**
     * Whether {@code got} is within the bound of a reordered sum of each row of {@code y = A x}: {@code 2 (len + 32)
     * eps sum |terms|}, printing the first row that is not.
     */
    public static boolean withinBound(Matrix a, double[] x, double[] expected, double[] got) {
        for (int r = 0; r < a.rows(); r++) {
            double abs = 0;
            for (int k = a.rowptr()[r]; k < a.rowptr()[r + 1]; k++) {
                abs += Math.abs(a.val()[k] * x[a.col()[k]]);
            }
            int len = a.rowptr()[r + 1] - a.rowptr()[r];
            double bound = 2 * (len + 32) * Math.ulp(1.0) * abs;
            if (!(Math.abs(expected[r] - got[r]) <= bound)) {
                System.out.printf("%s: row %d: %s, Java %s, bound %.3g%n", a.name(), r, got[r], expected[r], bound);
                return false;
            }
        }
        return true;
    }

    private static void table(String way, double ms, double bytes, double copy, double rows) {
        System.out.printf("  %-34s %10.3f %10.1f %12.2f %13.2fx%n", way, ms, bytes / ms / 1e6, copy / ms, rows / ms);
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int rows = Check.arg(args, 0, gpu ? 1 << 22 : 1 << 16);
        int reps = Check.arg(args, 1, gpu ? 20 : 3);
        int side = (int) Math.sqrt(rows);
        Check.header("sparse matrix-vector product, compressed rows (double)", rows + " rows");
        boolean ok = true;
        long checked = 0;
        for (Matrix a : new Matrix[] {laplacian(side), powerLaw(rows, 77)}) {
            int n = a.rows();
            double[] x = Check.random(new Random(5), n);
            double[] expected = new double[n];
            multiplyPlain(n, a.rowptr(), a.col(), a.val(), x, expected);
            double[] y = new double[n];
            multiplyRows(n, a.rowptr(), a.col(), a.val(), x, y);
            ok &= Check.same(a.name() + ", one thread per row", expected, y);
            double[] z = new double[n];
            multiplyLanes(n, a.rowptr(), a.col(), a.val(), x, z);
            ok &= withinBound(a, x, expected, z);
            multiplyLanes4(n, a.rowptr(), a.col(), a.val(), x, z);
            ok &= withinBound(a, x, expected, z);
            multiplyWarp(n, a.rowptr(), a.col(), a.val(), x, z);
            ok &= withinBound(a, x, expected, z);
            checked += 2L * n;
            System.out.printf("%s: %d rows, %d entries, mean row length %.2f%n", a.name(), n, a.nnz(),
                    (double) a.nnz() / n);
            int copied = (int) Math.min(Integer.MAX_VALUE - 8, (long) (a.bytes() / 16));
            double[] from = Check.random(new Random(6), copied);
            double[] to = new double[copied];
            double tCopy = timeCopy(from, to, copied, reps);
            double tRows = timeRows(n, a.rowptr(), a.col(), a.val(), x, y, reps);
            double tLanes = timeLanes(0, n, a.rowptr(), a.col(), a.val(), x, z, reps);
            double tLanes4 = timeLanes(4, n, a.rowptr(), a.col(), a.val(), x, z, reps);
            double tWarp = timeLanes(32, n, a.rowptr(), a.col(), a.val(), x, z, reps);
            System.out.printf("  %-34s %10s %10s %12s %14s%n", "", "ms", "GB/s", "of the copy", "vs per row");
            table("copy of the same bytes", tCopy, a.bytes(), tCopy, tRows);
            table("one thread per row", tRows, a.bytes(), tCopy, tRows);
            table("lanes per row, chosen at launch", tLanes, a.bytes(), tCopy, tRows);
            table("4 lanes per row (vector = 4)", tLanes4, a.bytes(), tCopy, tRows);
            table("a warp per row (vector = 32)", tWarp, a.bytes(), tCopy, tRows);
        }
        System.out.println("  (median of " + reps + " calls on resident data; one thread per row is Java's bits, lanes"
                + " within the bound of each row's reordered sum)");
        Check.verdict("sparse rows", ok, checked);
    }
}
