package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The samples' stencils with no hints, which the compiler marches, on random inputs from fixed seeds. */
final class MarchingCases {
    private MarchingCases() {
    }

    /** One call: the sample's method and its arguments. */
    record Case(Class<?> owner, String name, String descriptor, Object[] args, String label) {
        Method method() {
            for (Method m : owner.getDeclaredMethods()) {
                if (m.getName().equals(name)) {
                    m.setAccessible(true);
                    return m;
                }
            }
            throw new AssertionError("no method " + name);
        }

        Object[] copy() {
            Object[] out = args.clone();
            for (int k = 0; k < out.length; k++) {
                if (out[k] instanceof double[] d) {
                    out[k] = d.clone();
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return owner.getSimpleName() + "." + name + " " + label;
        }
    }

    /** The stencils (7-point, Laplacian, 13-point wave) at each {@code nx, ny, nz} of {@code sizes}. */
    static List<Case> cases(int[][] sizes) {
        List<Case> out = new ArrayList<>();
        Random r = new Random(2025);
        for (int[] s : sizes) {
            int n = s[0] * s[1] * s[2];
            String label = s[0] + "x" + s[1] + "x" + s[2];
            out.add(new Case(Stencil.class, "stencil", "([D[DIIIDD)V", new Object[] {doubles(r, n), doubles(r, n), s[0],
                s[1], s[2], 0.4, 0.1}, label));
            out.add(new Case(Laplacian.class, "laplacian", "([D[DIIIDDD)V", new Object[] {doubles(r, n), doubles(r, n),
                s[0], s[1], s[2], 0.7, -0.3, 1.1}, label));
            out.add(new Case(Wave13pt.class, "wave", "([D[D[DIIIDDD)V", new Object[] {doubles(r, n), doubles(r, n),
                doubles(r, n), s[0], s[1], s[2], 1.9, 0.3, -0.05}, label));
        }
        return out;
    }

    /** The Gaussian blur with no hints (a 5 x 5 window, unrolled then marched) at each {@code m, n} of {@code sizes}. */
    static List<Case> windows(int[][] sizes) {
        List<Case> out = new ArrayList<>();
        Random r = new Random(2026);
        for (int[] s : sizes) {
            int n = s[0] * s[1];
            out.add(new Case(Gaussblur.class, "blur", "([D[D[DII)V", new Object[] {doubles(r, n), doubles(r, n),
                doubles(r, 25), s[0], s[1]}, s[0] + "x" + s[1]));
        }
        return out;
    }

    static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int k = 0; k < n; k++) {
            d[k] = r.nextDouble() * 2 - 1;
        }
        return d;
    }

    /** Every element of every array argument bit for bit. */
    static void assertSame(Object[] expected, Object[] actual, String what) {
        for (int k = 0; k < expected.length; k++) {
            if (expected[k] instanceof double[] e) {
                double[] a = (double[]) actual[k];
                assertEquals(e.length, a.length);
                for (int q = 0; q < e.length; q++) {
                    if (Double.doubleToRawLongBits(e[q]) != Double.doubleToRawLongBits(a[q])) {
                        assertEquals(e[q], a[q], what + " argument " + k + " element " + q);
                        throw new AssertionError(what + " argument " + k + " element " + q + ": bits differ");
                    }
                }
            }
        }
    }
}
