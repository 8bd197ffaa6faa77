package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Calls of every {@link ArrayReduce} and {@link PrivateData} kernel on random inputs from a fixed seed: lengths
 * from none to many blocks, initial array values of every kind (each array reduction combines with the element's
 * value before the loop), extremes of the types and, for {@code float}, NaN and both zeros. Every result here is
 * defined exactly (integer sums, minima, maxima and bit operations in any order, row sums that each thread
 * computes in Java's order, private arrays that each thread computes as Java does), so every element of every
 * array must equal plain Java's, bit for bit.
 */
final class ArrayReduceCases {
    private ArrayReduceCases() {
    }

    /** One call: the kernel and its arguments (copied for each run). */
    record Case(Method method, String label, Object[] args) {
        Object[] copy() {
            Object[] out = args.clone();
            for (int i = 0; i < out.length; i++) {
                if (out[i] != null && out[i].getClass().isArray()) {
                    int n = Array.getLength(out[i]);
                    Object c = Array.newInstance(out[i].getClass().getComponentType(), n);
                    System.arraycopy(out[i], 0, c, 0, n);
                    out[i] = c;
                }
            }
            return out;
        }

        /** Every element of every array argument of {@code got} equals plain Java's ({@code expected}). */
        void check(Object[] expected, Object[] got, String where) {
            for (int i = 0; i < expected.length; i++) {
                Object e = expected[i];
                if (e == null || !e.getClass().isArray()) {
                    continue;
                }
                boolean same;
                if (e instanceof int[] a) {
                    same = Arrays.equals(a, (int[]) got[i]);
                } else if (e instanceof long[] a) {
                    same = Arrays.equals(a, (long[]) got[i]);
                } else if (e instanceof float[] a) {
                    same = Arrays.equals(a, (float[]) got[i]);
                } else if (e instanceof double[] a) {
                    same = Arrays.equals(a, (double[]) got[i]);
                } else {
                    throw new IllegalArgumentException(e.getClass().toString());
                }
                final int arg = i;
                assertTrue(same, () -> this + " " + where + ": argument " + arg + " differs from plain Java: "
                        + firstDifference(e, got[arg]));
            }
        }

        @Override
        public String toString() {
            return method.getName() + "(" + label + ")";
        }
    }

    private static String firstDifference(Object e, Object g) {
        int n = Array.getLength(e);
        for (int k = 0; k < n; k++) {
            if (!Array.get(e, k).equals(Array.get(g, k))) {
                return "element " + k + ": " + Array.get(e, k) + " expected, " + Array.get(g, k) + " got";
            }
        }
        return "none";
    }

    private static final long[] SPECIAL_LONG = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE,
        Long.MIN_VALUE};
    private static final float[] SPECIAL_FLOAT = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -1f};

    static List<Case> cases(long seed, int scale) {
        Random r = new Random(seed);
        List<Case> out = new ArrayList<>();
        int[] lengths = {0, 1, 31, 1000, 4096 * scale + 17};
        for (int n : lengths) {
            out.add(new Case(method("moments"), "n=" + n, new Object[] {ints(r, n), longs(r, 3), n}));
            out.add(new Case(method("fields"), "n=" + n, new Object[] {ints(r, n), ints(r, 8), n}));
            out.add(new Case(method("channels"), "n=" + n,
                    new Object[] {floats(r, 4 * n), floats(r, 4), floats(r, 4), doubles(r, 2), n}));
            long[] x = longs(r, n);
            out.add(new Case(method("extremes"), "n=" + n,
                    new Object[] {x, longs(r, 4), longs(r, 5), ints(r, 3), ints(r, 3), n}));
        }
        int[][] shapes = {{0, 5}, {1, 1}, {3, 200}, {37, 41}, {128 * scale + 3, 65}};
        for (int[] s : shapes) {
            int m = s[0];
            int n = s[1];
            String label = "m=" + m + ", n=" + n;
            out.add(new Case(method("moments2d"), label, new Object[] {ints(r, m * n), longs(r, 3), m, n}));
            out.add(new Case(method("rowSums"), label, new Object[] {doubles(r, m * n), doubles(r, m), m, n}));
            out.add(new Case(method("rowMaxSum"), label, new Object[] {floats(r, m * n), floats(r, m), longs(r, m), m, n}));
        }
        for (int n : lengths) {
            out.add(new Case(method("powers"), "n=" + n, new Object[] {doubles(r, n), doubles(r, n), n}));
            out.add(new Case(method("cloned"), "n=" + n, new Object[] {ints(r, n), ints(r, n), n}));
            out.add(new Case(method("nibbles"), "n=" + n, new Object[] {ints(r, n), longs(r, n), n}));
            out.add(new Case(method("digits"), "n=" + n, new Object[] {ints(r, n), ints(r, n), n}));
        }
        for (int[] s : shapes) {
            int rows = s[0];
            int cols = s[1];
            out.add(new Case(method("median5"), "rows=" + rows + ", cols=" + cols,
                    new Object[] {floats(r, rows * (cols + 4)), floats(r, rows * cols), rows, cols}));
        }
        return out;
    }

    private static Method method(String name) {
        for (Class<?> c : List.of(ArrayReduce.class, PrivateData.class)) {
            for (Method m : c.getMethods()) {
                if (m.getName().equals(name) && m.isAnnotationPresent(org.acc4j.Kernels.class)) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static int[] ints(Random r, int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(8) == 0 ? (int) SPECIAL_LONG[r.nextInt(5)] : r.nextInt();
        }
        return a;
    }

    private static long[] longs(Random r, int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(8) == 0 ? SPECIAL_LONG[r.nextInt(SPECIAL_LONG.length)] : r.nextLong();
        }
        return a;
    }

    private static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian() * Math.scalb(1.0, r.nextInt(40) - 20);
        }
        return a;
    }

    private static float[] floats(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(16) == 0 ? SPECIAL_FLOAT[r.nextInt(SPECIAL_FLOAT.length)] : (float) r.nextGaussian() * 100;
        }
        return a;
    }
}
