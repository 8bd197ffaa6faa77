package org.acc4j.samples;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.Kernels;

/**
 * Nests whose accesses the host proves in bounds, with subscripts of every linear shape the kernel then addresses
 * from their linear forms in 64 bits: constant offsets around one base (a stencil's taps), negative and symbolic
 * coefficients, a shift, a subscript whose rest is a parameter, a coefficient that wraps in {@code int}, a loop
 * with a step, elements of 1, 2, 4 and 8 bytes, and rows of a {@code double[][]}. Called directly they are plain
 * Java, the reference.
 */
public final class AffineKernels {
    private AffineKernels() {
    }

    @Kernels
    public static void cross(double[] src, double[] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = src[(i - 1) * n + j] - 2.0 * src[(i + 1) * n + j] + 0.5 * src[i * n + j + 1]
                        + src[i * n + j - 1];
            }
        }
    }

    @Kernels
    public static void reversed(double[] src, double[] dst, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                dst[(m - 1 - i) * n + (n - 1 - j)] = 3.0 * src[i * n + j];
            }
        }
    }

    @Kernels
    public static void shifted(int[] src, int[] dst, int rows) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < 8; j++) {
                dst[(i << 3) + j] = src[(i << 3) + 7 - j] ^ i;
            }
        }
    }

    @Kernels
    public static void offsetBy(float[] src, float[] dst, int n, int s) {
        for (int i = 0; i < n; i++) {
            dst[i] = src[i + s] * 2.0f - src[s + n - 1 - i];
        }
    }

    /** {@code k * k} wraps to 0 when {@code k = 65536}: the load reads {@code src[i]}, as Java does. */
    @Kernels
    public static void wrapped(long[] src, long[] dst, int n, int k) {
        for (int i = 0; i < n; i++) {
            dst[i] = src[i * k * k + i] + i;
        }
    }

    /** Jacobi's taps with the centre: a stencil the compiler marches along i, its other accesses proven. */
    @Kernels
    public static void taps(double[] src, double[] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = src[(i - 1) * n + j - 1] - 2.0 * src[(i + 1) * n + j + 1] + src[i * n + j]
                        + 0.5 * src[(i - 1) * n + j + 1] + src[i * n + j - 1];
            }
        }
    }

    @Kernels
    public static void stepped(short[] src, short[] dst, int n) {
        for (int i = 1; i < n - 1; i += 2) {
            dst[i] = (short) (src[i - 1] + src[i + 1] - src[i]);
        }
    }

    @Kernels
    public static void bytes(byte[] src, byte[] dst, int n) {
        for (int i = 2; i < n - 2; i++) {
            dst[i] = (byte) (src[i - 2] + src[i + 2] - src[i]);
        }
    }

    @Kernels
    public static void rows(double[][] src, double[][] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i][j] = src[i - 1][j + 1] - src[i + 1][j - 1] + 0.25 * src[i][j] + src[i][j + 1];
            }
        }
    }

    /** One call of a kernel: its method and arguments made from a seed. */
    public record Case(Method method, String label, Object[] args) {
        public String descriptor() {
            return MethodType.methodType(method.getReturnType(), method.getParameterTypes()).toMethodDescriptorString();
        }

        /** A deep copy of the arguments: arrays (and the rows of a {@code double[][]}) cloned. */
        public Object[] copy() {
            Object[] c = args.clone();
            for (int i = 0; i < c.length; i++) {
                if (c[i] instanceof double[][] g) {
                    double[][] rows = g.clone();
                    for (int r = 0; r < rows.length; r++) {
                        rows[r] = rows[r].clone();
                    }
                    c[i] = rows;
                } else if (c[i] != null && c[i].getClass().isArray()) {
                    c[i] = cloneArray(c[i]);
                }
            }
            return c;
        }

        @Override
        public String toString() {
            return method.getName() + " " + label;
        }
    }

    private static Object cloneArray(Object a) {
        if (a instanceof double[] d) {
            return d.clone();
        } else if (a instanceof float[] f) {
            return f.clone();
        } else if (a instanceof long[] l) {
            return l.clone();
        } else if (a instanceof int[] x) {
            return x.clone();
        } else if (a instanceof short[] s) {
            return s.clone();
        } else if (a instanceof byte[] b) {
            return b.clone();
        }
        throw new IllegalArgumentException(a.getClass().toString());
    }

    /** Every element of every array argument bit for bit (the rows of a {@code double[][]} too), naming the first that differs. */
    public static void assertSameBits(Object[] expected, Object[] actual, String what) {
        for (int k = 0; k < expected.length; k++) {
            if (expected[k] instanceof double[][] e) {
                double[][] a = (double[][]) actual[k];
                for (int r = 0; r < e.length; r++) {
                    sameArray(e[r], a[r], what + ", argument " + k + " row " + r);
                }
            } else if (expected[k] != null && expected[k].getClass().isArray()) {
                sameArray(expected[k], actual[k], what + ", argument " + k);
            }
        }
    }

    private static void sameArray(Object e, Object a, String what) {
        int n = java.lang.reflect.Array.getLength(e);
        if (n != java.lang.reflect.Array.getLength(a)) {
            throw new AssertionError(what + ": length " + java.lang.reflect.Array.getLength(a) + ", expected " + n);
        }
        for (int q = 0; q < n; q++) {
            long x = bits(java.lang.reflect.Array.get(e, q));
            long y = bits(java.lang.reflect.Array.get(a, q));
            if (x != y) {
                throw new AssertionError(what + " element " + q + ": " + java.lang.reflect.Array.get(a, q)
                        + ", expected " + java.lang.reflect.Array.get(e, q));
            }
        }
    }

    private static long bits(Object v) {
        if (v instanceof Double d) {
            return Double.doubleToRawLongBits(d);
        } else if (v instanceof Float f) {
            return Float.floatToRawIntBits(f);
        }
        return ((Number) v).longValue();
    }

    static Method method(String name) {
        for (Method m : AffineKernels.class.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.isAnnotationPresent(Kernels.class)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** Every kernel at a small size and at a size of many blocks, each from its own seed. */
    public static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        int[][] sizes = {{3, 5}, {37, 61}, {515, 1029}};
        long seed = 41;
        for (int[] s : sizes) {
            int m = s[0];
            int n = s[1];
            String size = m + " x " + n;
            Random r = new Random(seed++);
            out.add(new Case(method("cross"), size, new Object[] {doubles(r, m * n), doubles(r, m * n), m, n}));
            out.add(new Case(method("taps"), size, new Object[] {doubles(r, m * n), doubles(r, m * n), m, n}));
            out.add(new Case(method("reversed"), size, new Object[] {doubles(r, m * n), new double[m * n], m, n}));
            out.add(new Case(method("shifted"), m + " rows", new Object[] {ints(r, 8 * m), new int[8 * m], m}));
            out.add(new Case(method("offsetBy"), n + ", offset " + m, new Object[] {floats(r, n + m), new float[n + m],
                n, m}));
            out.add(new Case(method("wrapped"), n + ", k = 65536", new Object[] {longs(r, n), new long[n], n, 65536}));
            out.add(new Case(method("stepped"), Integer.toString(m * n), new Object[] {shorts(r, m * n),
                new short[m * n], m * n}));
            out.add(new Case(method("bytes"), Integer.toString(m * n), new Object[] {randomBytes(r, m * n),
                new byte[m * n], m * n}));
            out.add(new Case(method("rows"), size, new Object[] {grid(r, m, n), grid(r, m, n), m, n}));
        }
        return out;
    }

    static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * 2 - 1;
        }
        return a;
    }

    static float[] floats(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextFloat() * 2 - 1;
        }
        return a;
    }

    static long[] longs(Random r, int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextLong();
        }
        return a;
    }

    static int[] ints(Random r, int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt();
        }
        return a;
    }

    static short[] shorts(Random r, int n) {
        short[] a = new short[n];
        for (int i = 0; i < n; i++) {
            a[i] = (short) r.nextInt();
        }
        return a;
    }

    static byte[] randomBytes(Random r, int n) {
        byte[] a = new byte[n];
        r.nextBytes(a);
        return a;
    }

    static double[][] grid(Random r, int m, int n) {
        double[][] g = new double[m][];
        for (int i = 0; i < m; i++) {
            g[i] = doubles(r, n);
        }
        return g;
    }
}
