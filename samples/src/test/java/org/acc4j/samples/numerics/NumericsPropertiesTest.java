package org.acc4j.samples.numerics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The numerics samples' paths that their mains do not take (a singular matrix, no convergence, degenerate FFT
 * lengths), and their results' known properties at other sizes, in plain Java (no agent in this JVM).
 */
class NumericsPropertiesTest {
    @Test
    void luReturnsOneAtAZeroPivot() {
        Random random = new Random(5);
        double[][] z = LU.randomMatrix(5, 5, random);
        for (double[] row : z) {
            row[2] = 0.0;
        }
        double[] untouched = z[4].clone();
        int[] pivot = new int[5];
        assertEquals(1, LU.factor(z, pivot), "a zero column must stop the factorisation");
        assertEquals(2, pivot[2], "the pivot search of the zero column found nothing larger than the diagonal");
        assertEquals(0.0, z[2][2]);
        assertNotEquals(untouched[3], z[4][3], "columns 0 and 1 were eliminated before the return");
        double[][] rectangular = LU.randomMatrix(3, 5, random);
        assertEquals(0, LU.factor(rectangular, new int[3]), "3 x 5 factors");
    }

    @Test
    void luReconstructsAtOtherSizes() {
        for (int n : new int[] {1, 2, 17, 64}) {
            double[][] A = LU.randomMatrix(n, n, new Random(n));
            double[][] lu = new double[n][];
            for (int i = 0; i < n; i++) {
                lu[i] = A[i].clone();
            }
            int[] pivot = new int[n];
            assertEquals(0, LU.factor(lu, pivot));
            double err = LU.reconstructionError(A, lu, pivot);
            assertTrue(err < 1e-13 * Math.max(1, n), "n = " + n + ": " + err);
            for (int j = 0; j < n; j++) {
                assertTrue(pivot[j] >= j && pivot[j] < n, "pivot " + j);
            }
        }
    }

    @Test
    void fftInverseReturnsTheInputAndTheTransformMatchesDirectSums() {
        for (int n : new int[] {2, 4, 8, 64, 512}) {
            Random random = new Random(n);
            double[] x = new double[2 * n];
            for (int i = 0; i < x.length; i++) {
                x[i] = random.nextDouble() - 0.5;
            }
            double[] y = x.clone();
            FFT.transform(y);
            int[] all = new int[n];
            for (int k = 0; k < n; k++) {
                all[k] = k;
            }
            assertTrue(FFT.directError(x, y, all) < 1e-13, "n = " + n);
            FFT.inverse(y);
            assertTrue(FFT.rms(x, y) < 1e-14, "n = " + n + ": " + FFT.rms(x, y));
        }
    }

    @Test
    void fftReturnsEarlyForLengthZeroAndOneAndRefusesOtherLengths() {
        double[] empty = {};
        FFT.transform(empty);
        double[] one = {3.0, -4.0};
        FFT.transform(one);
        assertArrayEquals(new double[] {3.0, -4.0}, one);
        assertThrows(IllegalArgumentException.class, () -> FFT.transform(new double[6]));
    }

    @Test
    void jacobiStopsAtMaxIterWithoutConvergingAndSwapsTheGrids() {
        Jacobi2D j = new Jacobi2D(16, 16, 1e-12, 5);
        double[] first = j.u;
        j.solve();
        assertEquals(5, j.iterations);
        assertTrue(j.error > 1e-12);
        assertTrue(j.verify() != null, "5 iterations cannot converge to 1e-12");
        assertNotEquals(first, j.u, "an odd number of sweeps leaves the latest values in the other grid");
        Jacobi2D k = new Jacobi2D(16, 16, 1e-5, 10000);
        k.solve();
        assertNull(k.verify());
    }

    @Test
    void heatRunsAllStepsWhenTheToleranceIsNeverMet() {
        int nx = 12;
        int ny = 9;
        double[] start = Heat2D.initial(nx, ny);
        double[] u = start.clone();
        double[] w = start.clone();
        assertEquals(7, Heat2D.run(u, w, nx, ny, 0.1, 0.1, 7, 3, 0.0));
        double[] latest = w;
        assertTrue(latest[5 * ny + 4] < start[5 * ny + 4], "the interior cools");
        int done = Heat2D.run(u = start.clone(), w = start.clone(), nx, ny, 0.1, 0.1, 100000, 10, 1e-6);
        assertTrue(done < 100000 && done % 10 == 0, "stops at a check: " + done);
        assertNull(Heat2D.verify(start, done % 2 == 0 ? u : w, nx, ny, done, 100000));
    }

    @Test
    void cgConvergesAndItsEigenvalueEstimateFallsAtOtherSizes() {
        CG cg = new CG(300, 5, 8);
        cg.setup(11);
        cg.benchmark();
        assertNull(cg.verify());
        // zeta is a Rayleigh quotient: between the smallest eigenvalue (at least 1) and the largest (Gershgorin)
        double gershgorin = 0.0;
        for (int i = 0; i < cg.na; i++) {
            double row = 0.0;
            for (int k = cg.rowstr[i]; k < cg.rowstr[i + 1]; k++) {
                row += Math.abs(cg.a[k]);
            }
            gershgorin = Math.max(gershgorin, row);
        }
        assertTrue(cg.zeta >= 1.0 && cg.zeta <= gershgorin, "zeta " + cg.zeta);
    }

    @Test
    void mgSweepsLowerTheResidual() {
        MG mg = new MG(16, 6);
        mg.setup(3);
        mg.relax(mg.u, mg.v, mg.r, mg.n1, mg.n2, mg.n3, 6);
        assertNull(mg.verify());
        assertTrue(mg.rnm2s[5] < 0.25 * mg.rnm2s[0], "6 sweeps: " + mg.rnm2s[0] + " -> " + mg.rnm2s[5]);
    }

    @Test
    void mgComm3MakesTheGridPeriodic() {
        MG mg = new MG(4, 1);
        double[] u = new double[mg.n1 * mg.n2 * mg.n3];
        Random random = new Random(9);
        for (int i = 0; i < u.length; i++) {
            u[i] = random.nextDouble();
        }
        mg.comm3(u, mg.n1, mg.n2, mg.n3);
        int n1 = mg.n1;
        int n2 = mg.n2;
        for (int i3 = 0; i3 < mg.n3; i3++) {
            for (int i2 = 0; i2 < n2; i2++) {
                assertEquals(u[n1 - 2 + n1 * (i2 + n2 * i3)], u[n1 * (i2 + n2 * i3)]);
                assertEquals(u[1 + n1 * (i2 + n2 * i3)], u[n1 - 1 + n1 * (i2 + n2 * i3)]);
            }
        }
    }

    @Test
    void mandelbrotCountsKnownPoints() {
        // a 5 x 1 row through the real axis at -2, -1, 0, 1, 2 (dx = 1): -2, -1 and 0 are in the set
        int[] counts = new int[5];
        Mandelbrot.compute(counts, 5, 1, -2.0, 0.0, 1.0, 1.0, 100);
        assertArrayEquals(new int[] {100, 100, 100, 3, 2}, counts);
    }

    @Test
    void nbodyConservesMomentumAndTwoBodiesAttract() {
        NBody b = new NBody(2, 1);
        b.x[0] = -0.5;
        b.x[1] = 0.5;
        b.y[0] = b.y[1] = b.z[0] = b.z[1] = 0.0;
        b.vx[0] = b.vx[1] = b.vy[0] = b.vy[1] = b.vz[0] = b.vz[1] = 0.0;
        b.advance(3, 0.01);
        assertTrue(b.x[0] > -0.5 && b.x[1] < 0.5, "they move towards each other");
        assertEquals(-b.x[0], b.x[1], 1e-15);
        assertTrue(b.momentum() < 1e-15);
    }

    @Test
    void sparseCompRowMatchesTheTransposedProduct() {
        int[] row = {0, 2, 3, 3, 5};
        int[] col = {0, 3, 1, 0, 2};
        double[] val = {1.0, 2.0, 3.0, 4.0, 5.0};
        double[] x = {1.0, 10.0, 100.0, 1000.0};
        double[] y = new double[4];
        SparseCompRow.matmult(y, val, row, col, x, 3);
        assertArrayEquals(new double[] {2001.0, 30.0, 0.0, 504.0}, y);
        assertNull(SparseCompRow.verify(y, val, row, col, x, new Random(1)));
    }

    @Test
    void checksumSeesEveryBit() {
        String zero = new Checksum().add(new double[] {0.0}).hex();
        assertNotEquals(zero, new Checksum().add(new double[] {-0.0}).hex());
        assertNotEquals(new Checksum().add(Double.NaN).hex(),
                new Checksum().add(Double.longBitsToDouble(0x7ff8000000000001L)).hex());
        assertNotEquals(new Checksum().add(new double[] {1.0}).add(new double[0]).hex(),
                new Checksum().add(new double[0]).add(new double[] {1.0}).hex());
        assertEquals(zero, new Checksum().add(new double[] {0.0}).hex());
        Checksum c = new Checksum().add(1.0);
        assertEquals(c.hex(), c.hex());
        double[] big = new double[5000];
        assertEquals(5001, new Checksum().add(big).add(1).values());
        Timer t = new Timer(2);
        t.start(1);
        t.stop(1);
        assertTrue(t.read(1) >= 0.0);
        assertEquals(0.0, t.read(0));
    }
}
