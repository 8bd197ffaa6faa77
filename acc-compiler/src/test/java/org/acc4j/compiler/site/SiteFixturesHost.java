package org.acc4j.compiler.site;

import org.acc4j.Kernels;

/**
 * Methods whose host code between nests reads, writes and swaps single elements and rows of the nests' arrays, for
 * {@link HostAccessSitesTest}.
 */
final class SiteFixturesHost {
    private SiteFixturesHost() {
    }

    /** A time loop on two grids: a stencil, then host code setting two corner values, then a swap of references. */
    @Kernels
    static double corners(double[][] u, double[][] v, int n, int steps) {
        for (int t = 0; t < steps; t++) {
            for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
                }
            }
            v[0][0] = v[1][1] + t;
            v[n - 1][n - 1] = v[n - 2][n - 2] * 0.5;
            double[][] s = u;
            u = v;
            v = s;
        }
        return u[n / 2][n / 2];
    }

    /** A row replaced by a new one between two nests; the replaced row is read afterwards. */
    @Kernels
    static double replaceRow(double[][] a, int n) {
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < n; j++) {
                a[i][j] = a[i][j] * 2 + i;
            }
        }
        double[] old = a[1];
        a[1] = new double[n];
        a[1][0] = old[0] + 1;
        double[] r2 = a[2];
        a[2] = a[3];
        a[3] = r2;
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < n; j++) {
                a[i][j] += 1;
            }
        }
        return old[n - 1] + a[1][n - 1];
    }

    /** One-dimensional arrays: host code reads an element a kernel wrote, writes another, and a kernel reads it. */
    @Kernels
    static double scalars(double[] x, double[] y, int n, int steps) {
        double total = 0;
        for (int t = 0; t < steps; t++) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * 0.5 + y[i];
            }
            if (x[t % n] > 0.75) {
                y[(t * 7) % n] = -x[t % n];
            }
            total += x[n - 1];
            for (int i = 0; i < n; i++) {
                y[i] = y[i] + x[(i + 1) % n];
            }
        }
        return total;
    }
}
