package org.acc4j.runtime.gpu;

import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * {@code @Kernels} and {@code @Data} methods over boolean, byte, short and char arrays for {@link NarrowGpuTest};
 * each is also its own plain-Java reference.
 */
final class NarrowFixtures {
    /** A table the {@link #lookup} kernel reads as a static field. */
    static char[] table;

    private NarrowFixtures() {
    }

    @Kernels
    static void bytes(byte[] a, byte[] b, int[] wide, int n) {
        for (int i = 0; i < n; i++) {
            wide[i] = a[i] * 1000 + (a[i] >>> 3);
            b[i] = (byte) (a[i] * 3 + b[i]);
        }
    }

    @Kernels
    static void chars(char[] c, char[] d, int[] code, int n) {
        for (int i = 0; i < n; i++) {
            code[i] = c[i] - 40000;
            d[i] = (char) (c[i] * 7 + 1);
        }
    }

    @Kernels
    static void shorts(short[] s, short[] t, long[] wide, int n) {
        for (int i = 0; i < n; i++) {
            wide[i] = s[i] * 100000L;
            t[i] += s[i];
        }
    }

    @Kernels
    static void booleans(int[] a, boolean[] positive, boolean[] flip, int n) {
        for (int i = 0; i < n; i++) {
            boolean p = a[i] > 0;
            boolean f = !flip[i] ^ p;
            positive[i] = p;
            flip[i] = f;
        }
    }

    @Kernels
    static void conversions(byte[] b, short[] s, char[] c, double[] d, int n) {
        for (int i = 0; i < n; i++) {
            short x = s[i];
            s[i] = b[i];
            c[i] = (char) x;
            b[i] = (byte) (x >> 4);
            d[i] = (char) x + 0.5 * b[i];
        }
    }

    @Kernels
    static int byteSum(byte[] a, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
        }
        return s;
    }

    @Kernels
    static int charMax(char[] c, int n) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, c[i]);
        }
        return m;
    }

    @Kernels
    static boolean anySet(boolean[] z, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            any = any || z[i];
        }
        return any;
    }

    @Kernels
    static long shortDot(short[] a, short[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    @Kernels
    static void bytes2D(byte[][] a, short[][] out, int rows, int cols) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                out[i][j] = (short) (a[i][j] << 7);
            }
        }
    }

    @Kernels
    static void upper2D(char[][] c, boolean[][] upper, int rows) {
        for (@Loop(gang = Loop.AUTO, vector = 128) int i = 0; i < rows; i++) {
            char[] ci = c[i];
            for (int j = 0; j < ci.length; j++) {
                upper[i][j] = ci[j] >= 'A' && ci[j] <= 'Z';
            }
        }
    }

    @Kernels
    static void masked(boolean[][] mask, int[][] a, int rows, int cols) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                if (mask[i][j]) {
                    a[i][j] = -a[i][j];
                }
            }
        }
    }

    /** An indirect read of the static char[] {@link #table} through bytes taken unsigned. */
    @Kernels
    static void lookup(byte[] idx, int[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = table[idx[i] & 0xff];
        }
    }

    /** Reads one past the end when {@code n == a.length}. */
    @Kernels
    static void nextByte(byte[] a, short[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = (short) (a[i + 1] - a[i]);
        }
    }

    @Kernels
    static void square(byte[] b, short[] tmp, int n) {
        for (int i = 0; i < n; i++) {
            tmp[i] = (short) (b[i] * b[i]);
        }
    }

    @Kernels
    static void threshold(short[] tmp, boolean[] z, short[] s, int n) {
        for (int i = 0; i < n; i++) {
            int was = z[i] ? 1 : 0;
            boolean over = tmp[i] > 100;
            s[i] = (short) (tmp[i] + was);
            z[i] = over;
        }
    }

    /**
     * A data region: b and z go in, tmp lives only on the device, s comes back, z too. The tests enter it with
     * {@code AccRuntime.enterData} and run its kernels through {@code AccRuntime.offload}, as the agent does.
     */
    @Data(copyin = "b", copy = "z", create = "tmp", copyout = "s")
    static void region(byte[] b, boolean[] z, short[] tmp, short[] s, int n) {
        square(b, tmp, n);
        threshold(tmp, z, s, n);
    }

    @Kernels(asyncParam = "q")
    static void flipOn(boolean[] z, byte[] b, int n, int q) {
        for (@Loop(independent = true) int i = 0; i < n; i++) {
            z[i] = !z[i];
            b[i] = (byte) (b[i] + 1);
        }
    }
}
