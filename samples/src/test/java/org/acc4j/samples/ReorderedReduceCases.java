package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Calls of the {@link ArrayReduce} kernels whose floating-point sums the user allowed to run in another order than
 * Java's ({@code weightedSums}: a reduction clause naming the array; {@code rowSumsVector}: a vector reduction per
 * row), on random inputs from a fixed seed, and the check of every output element against plain Java's within the
 * first-order bound of two orders of one sum: {@code |a - b| <= 2 (n - 1) u sum|x_i|} with {@code u = 2^-53}.
 */
final class ReorderedReduceCases {
    private ReorderedReduceCases() {
    }

    /** One call: the kernel's name and its arguments (copied for each run). */
    record Case(String method, Object[] args) {
        Object[] copy() {
            Object[] out = args.clone();
            for (int i = 0; i < out.length; i++) {
                if (out[i] instanceof double[] d) {
                    out[i] = d.clone();
                }
            }
            return out;
        }

        /** Every output element of {@code got} within the bound of plain Java's ({@code expected}). */
        void check(Object[] expected, Object[] got, String where) {
            double[] x = (double[]) args[0];
            if (method.equals("weightedSums")) {
                double[] w = (double[]) args[1];
                double[] c0 = (double[]) args[2];
                int n = (int) args[3];
                double[][] terms = new double[3][n];
                for (int i = 0; i < n; i++) {
                    terms[0][i] = w[i] * x[i];
                    terms[1][i] = x[i] * x[i];
                    terms[2][i] = x[i];
                }
                for (int k = 0; k < 3; k++) {
                    near((double[]) expected[2], (double[]) got[2], k, c0[k], terms[k], where);
                }
            } else {
                int m = (int) args[2];
                int n = (int) args[3];
                for (int i = 0; i < m; i++) {
                    double[] row = java.util.Arrays.copyOfRange(x, i * n, i * n + n);
                    near((double[]) expected[1], (double[]) got[1], i, 0, row, where);
                }
            }
        }

        private void near(double[] expected, double[] got, int k, double start, double[] terms, String where) {
            double mag = Math.abs(start);
            for (double t : terms) {
                mag += Math.abs(t);
            }
            double bound = 2 * (terms.length + 1) * 0x1p-53 * mag;
            double e = expected[k];
            double g = got[k];
            assertTrue(Math.abs(e - g) <= bound, () -> this + " " + where + ": element " + k + ": " + g + ", plain Java "
                    + e + ", beyond the bound " + bound);
        }

        @Override
        public String toString() {
            return method + "(" + (method.equals("weightedSums") ? "n=" + args[3] : "m=" + args[2] + ", n=" + args[3])
                    + ")";
        }
    }

    static List<Case> cases(long seed, int scale) {
        Random r = new Random(seed);
        List<Case> out = new ArrayList<>();
        for (int n : new int[] {0, 1, 31, 1000, 4096 * scale + 17}) {
            out.add(new Case("weightedSums", new Object[] {doubles(r, n), doubles(r, n), doubles(r, 3), n}));
        }
        for (int[] s : new int[][] {{0, 5}, {1, 1}, {3, 200}, {37, 41}, {128 * scale + 3, 65}, {5, 4099}}) {
            out.add(new Case("rowSumsVector", new Object[] {doubles(r, s[0] * s[1]), new double[s[0]], s[0], s[1]}));
        }
        return out;
    }

    static java.lang.reflect.Method method(String name) {
        for (java.lang.reflect.Method m : ArrayReduce.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian() * Math.scalb(1.0, r.nextInt(20) - 10);
        }
        return a;
    }
}
