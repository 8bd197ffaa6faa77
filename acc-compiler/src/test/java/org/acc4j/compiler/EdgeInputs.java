package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.acc4j.compiler.interp.KernelInterpreter;

/**
 * Seeded inputs of edge loops that add into cells through index arrays (atomic or coloured increments), and the
 * checks of their results against plain Java's.
 */
final class EdgeInputs {
    private EdgeInputs() {
    }

    /** An edge loop as plain Java: for each of {@code ne} edges, a flux between cells {@code c1[e]} and {@code c2[e]}. */
    interface EdgeLoop {
        void run(int ne, int[] c1, int[] c2, double[] q, double[] res, double[] flux);
    }

    /** {@code n} cell indices below {@code cells}. */
    static int[] cells(Random r, int n, int cells) {
        int[] c = new int[n];
        for (int i = 0; i < n; i++) {
            c[i] = r.nextInt(cells);
        }
        return c;
    }

    /** Multiples of 1/64 below 2^10: every partial sum of their products is exact, so any order gives Java's bits. */
    static double[] exactValues(Random r, int n) {
        double[] q = new double[n];
        for (int i = 0; i < n; i++) {
            q[i] = r.nextInt(1 << 16) / 64.0;
        }
        return q;
    }

    /** The edge kernel {@code m} in the interpreter gives {@code java}'s results bit for bit, for seeds 1 to 3. */
    static void edgesAreJavasBitForBit(CompiledMethod m, EdgeLoop java) {
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int ne = 3000;
            int nc = 700;
            int[] c1 = cells(r, ne, nc);
            int[] c2 = cells(r, ne, nc);
            double[] q = exactValues(r, nc);
            double[] plain = new double[nc];
            double[] kernel = new double[nc];
            double[] fluxPlain = r.doubles(ne).toArray();
            double[] fluxKernel = fluxPlain.clone();
            java.run(ne, c1, c2, q, plain, fluxPlain);
            KernelInterpreter.run(m, new Object[] {ne, c1, c2, q, kernel, fluxKernel}, 3);
            assertArrayEquals(plain, kernel, 0.0, "seed " + seed);
            assertArrayEquals(fluxPlain, fluxKernel, 0.0, "seed " + seed);
        }
    }

    /**
     * Every element of {@code got} within the bound of a reordered float sum of Java's {@code plain}: four components
     * per cell, each edge adding {@code q[4 c1 + k] * q[4 c2 + k]} to both of its cells' component k; a cell's sum of
     * n terms within {@code 2 n ulp(1f)} times the sum of their magnitudes.
     */
    static void cells4WithinTheBound(int ne, int[] c1, int[] c2, float[] q, float[] plain, float[] got) {
        double[] abs = new double[plain.length];
        int[] count = new int[plain.length / 4];
        for (int e = 0; e < ne; e++) {
            for (int k = 0; k < 4; k++) {
                double f = Math.abs(q[4 * c1[e] + k] * q[4 * c2[e] + k]);
                abs[4 * c1[e] + k] += f;
                abs[4 * c2[e] + k] += f;
            }
            count[c1[e]]++;
            count[c2[e]]++;
        }
        for (int i = 0; i < plain.length; i++) {
            double bound = 2 * count[i / 4] * Math.ulp(1.0f) * abs[i];
            assertTrue(Math.abs(plain[i] - got[i]) <= bound, "element " + i + ": " + plain[i] + " vs " + got[i]);
        }
    }
}
