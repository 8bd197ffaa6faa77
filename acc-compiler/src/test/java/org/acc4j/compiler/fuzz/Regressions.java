package org.acc4j.compiler.fuzz;

import org.acc4j.Kernels;

/** Minimal kernels of the fuzzer's findings (see {@link RegressionTest}); each names the seed it came from. */
public final class Regressions {
    private Regressions() {
    }

    /** Seed 9 (and most "accessed at another subscript" refusals of seeds 1..6000): a ?: in a read-modify-write. */
    @Kernels
    public static void selectInReadModifyWrite(double[] o, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            o[i] = o[i] + (b[i] > 0 ? 1.0 : 2.0);
        }
    }

    /** The same with a compound assignment (javac's dup2 of array and index across the ?:). */
    @Kernels
    public static void selectInCompoundAssignment(double[] o, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            o[i] += b[i] > 0 ? 1.0 : 2.0;
        }
    }

    /** The form that is parallel today: the ?: in a local before the read-modify-write. */
    @Kernels
    public static void selectBeforeReadModifyWrite(double[] o, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            double t = b[i] > 0 ? 1.0 : 2.0;
            o[i] = o[i] + t;
        }
    }

    /** Seed 13: a read one past the end of b. */
    @Kernels
    public static void readPastTheEnd(double[] o, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            o[i] = b[i + 1];
        }
    }

    /**
     * Stencil seeds with two inputs (2604 and others of the first 1000 stencil shapes): the column b is read after a,
     * so the marched kernel's statements used the arrays in another order than the plain kernel's parameters, and the
     * nest kept its plain kernel.
     */
    @Kernels
    public static void columnReadAfterAnotherArray(double[] a, double[] b, double[] o, int n, int m) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < m - 1; j++) {
                int c = i * m + j;
                o[c] = a[c - m - 1] + b[c - m] + b[c] + 0.5 * b[c + m];
            }
        }
    }

    /** Stencil seed 2039 (a blur over rows whose halo leaves the array): a row index out of range. */
    @Kernels
    public static void rowBelowTheFirst(double[][] a, double[][] o, int n, int m) {
        for (int i = 0; i < n - 1; i++) {
            for (int j = 0; j < m; j++) {
                o[i][j] = a[i - 1][j] + a[i + 1][j];
            }
        }
    }
}
