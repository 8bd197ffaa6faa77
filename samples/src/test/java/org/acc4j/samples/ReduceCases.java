package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The {@link Reduce} kernels with seeded inputs at several lengths (empty, one element, not a multiple of any
 * block, and large), and how a result may differ from plain Java's: integers, booleans, max and min exactly;
 * floating-point sums and products within a bound from the length, the unit roundoff and the terms' magnitudes
 * (the device adds in a tree, Java from left to right).
 */
final class ReduceCases {
    /** One call: kernel, arguments, and the error bound (0: bit for bit). */
    record Case(String kernel, int n, Object[] args, double bound) {
        @Override
        public String toString() {
            return kernel + "(n=" + n + ")";
        }

        Method method() {
            for (Method m : Reduce.class.getMethods()) {
                if (m.getName().equals(kernel)) {
                    return m;
                }
            }
            throw new IllegalArgumentException(kernel);
        }

        Object[] copy() {
            Object[] c = args.clone();
            for (int k = 0; k < c.length; k++) {
                if (c[k] instanceof double[][] d) {
                    c[k] = java.util.Arrays.stream(d).map(double[]::clone).toArray(double[][]::new);
                } else if (c[k] instanceof double[] d) {
                    c[k] = d.clone();
                } else if (c[k] instanceof float[] f) {
                    c[k] = f.clone();
                } else if (c[k] instanceof int[] i) {
                    c[k] = i.clone();
                } else if (c[k] instanceof long[] l) {
                    c[k] = l.clone();
                }
            }
            return c;
        }

        /** Asserts {@code actual} is {@code expected} within the bound; for in-place outputs, compares arrays. */
        void check(Object expected, Object actual, Object[] expectedArgs, Object[] actualArgs, String where) {
            if (bound == 0 || !(expected instanceof Double || expected instanceof Float)) {
                assertEquals(expected, actual, this + " " + where);
            } else {
                double e = ((Number) expected).doubleValue();
                double a = ((Number) actual).doubleValue();
                assertTrue(Math.abs(e - a) <= bound, this + " " + where + ": " + a + " vs Java's " + e + ", bound " + bound);
            }
            if (kernel.equals("normalize")) {
                double[] e = (double[]) expectedArgs[0];
                double[] a = (double[]) actualArgs[0];
                for (int i = 0; i < e.length; i++) {
                    // a[i] / norm: norm's relative error plus one rounding
                    assertTrue(Math.abs(e[i] - a[i]) <= Math.abs(e[i]) * (bound / (Double) expected + 0x1p-52),
                            this + " element " + i);
                }
            }
        }
    }

    private static final double U = 0x1p-53;
    private static final double UF = 0x1p-24;

    private ReduceCases() {
    }

    static List<Case> cases(long seed, int scale) {
        List<Case> out = new ArrayList<>();
        for (int n : new int[] {0, 1, 1003 * scale, 4096 * scale + 17}) {
            Random r = new Random(seed + n);
            double[] a = doubles(r, n);
            double[] b = doubles(r, n);
            float[] f = new float[n];
            int[] ia = new int[n];
            long[] la = new long[n];
            for (int i = 0; i < n; i++) {
                f[i] = (float) a[i];
                ia[i] = r.nextInt();
                la[i] = r.nextLong();
            }
            if (n > 3) {
                a[n / 2] = -0.0;
                f[1] = Float.NaN;
            }
            out.add(new Case("dot", n, new Object[] {a, b, n}, gamma(n, U) * sumAbs(a, b)));
            out.add(new Case("maxNorm", n, new Object[] {a, n}, 0));
            out.add(new Case("minFloat", n, new Object[] {f, n}, 0));
            float[] g = f.clone();
            if (n > 3) {
                g[1] = 0.25f;
            }
            out.add(new Case("sumFloat", n, new Object[] {g, n}, gamma(n + 1, UF) * (1.5 + sumAbs(g))));
            out.add(new Case("productDouble", n, new Object[] {a, n}, gamma(2 * n + 2, U) * Math.exp(n * 1e-3)));
            out.add(new Case("sumInt", n, new Object[] {ia, n}, 0));
            out.add(new Case("productLong", n, new Object[] {la, n}, 0));
            out.add(new Case("maxLong", n, new Object[] {la, n}, 0));
            out.add(new Case("minInt", n, new Object[] {ia, n}, 0));
            out.add(new Case("bitsInt", n, new Object[] {ia, n}, 0));
            out.add(new Case("xorLong", n, new Object[] {la, n}, 0));
            out.add(new Case("allAndAny", n, new Object[] {a, 0.999, n}, 0));
            out.add(new Case("allAndAny", n, new Object[] {a, 2.0, n}, 0));
            out.add(new Case("countAbove", n, new Object[] {a, 0.25, n}, 0));
            out.add(new Case("normalize", n, new Object[] {a.clone(), n}, 2 * gamma(n + 2, U) * Math.sqrt(sumAbs(a, a))));
        }
        for (int[] shape : new int[][] {{1, 1}, {37 * scale, 53}, {129, 7 * scale}}) {
            int rows = shape[0];
            int cols = shape[1];
            Random r = new Random(seed + rows * 1000L + cols);
            double[] m = doubles(r, rows * cols);
            int[] im = new int[rows * cols];
            for (int i = 0; i < im.length; i++) {
                im[i] = r.nextInt();
            }
            double[][] m2 = new double[rows][];
            for (int i = 0; i < rows; i++) {
                m2[i] = java.util.Arrays.copyOfRange(m, i * cols, (i + 1) * cols);
            }
            int n = rows * cols;
            out.add(new Case("matrixSum", n, new Object[] {m, rows, cols}, gamma(n, U) * sumAbs(m)));
            out.add(new Case("matrixSum2D", n, new Object[] {m2, rows, cols}, gamma(n, U) * sumAbs(m)));
            out.add(new Case("collapsedSum", n, new Object[] {im, rows, cols}, 0));
            out.add(new Case("gangVector", n, new Object[] {m, rows, cols}, gamma(n + 1, U) * sumAbs(m) * rows));
            out.add(new Case("maxRowSum", n, new Object[] {m, rows, cols}, 0));
        }
        return out;
    }

    /** n u / (1 - n u): the classic bound on the relative error of n roundings. */
    private static double gamma(int n, double u) {
        return n * u / (1 - n * u);
    }

    private static double sumAbs(double[] a) {
        double s = 0;
        for (double x : a) {
            s += Math.abs(x);
        }
        return s * (1 + 1e-6);
    }

    private static double sumAbs(float[] a) {
        double s = 0;
        for (float x : a) {
            s += Float.isNaN(x) ? 0 : Math.abs(x);
        }
        return s * (1 + 1e-6);
    }

    private static double sumAbs(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += Math.abs(a[i] * b[i]);
        }
        return s * (1 + 1e-6);
    }

    private static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * 2 - 1;
        }
        return a;
    }
}
