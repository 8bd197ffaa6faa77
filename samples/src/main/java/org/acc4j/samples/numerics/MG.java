package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * The residual and smoother of NPB MG on one periodic grid of {@code n1 x n2 x n3} points (the interior plus one
 * halo plane on each side), stored flat as NPB's Java version stores it: point (i1, i2, i3) is
 * {@code u[i1 + n1 * (i2 + n2 * i3)]}. {@link #relax} alternates the residual {@code r = v - A u} and the
 * smoother {@code u = u + S r} with NPB's coefficients, exchanging the halos ({@link #comm3}) after each, and
 * records the residual's norms ({@link #norm2u3}) after each residual. The right-hand side is NPB's: +1 at ten
 * random points, -1 at ten others.
 *
 * <p>Run: {@code java MG [n [nit]]} (defaults 32 interior points per side, 4 sweeps).
 */
public class MG {
    static final long SEED = 314159265L;

    /** NPB's residual operator, a[1] = 0 (the face neighbours do not enter). */
    protected final double[] a = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
    /** NPB's smoother (classes S, W, A), c[3] = 0. */
    protected final double[] c = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};

    protected final int n1;
    protected final int n2;
    protected final int n3;
    protected final double[] u;
    protected final double[] v;
    protected final double[] r;

    /** Set by {@link #norm2u3}: the root mean square and the largest magnitude of the residual. */
    protected double rnm2;
    protected double rnmu;
    protected final double[] rnm2s;
    protected final double[] rnmus;

    public MG(int n, int nit) {
        n1 = n + 2;
        n2 = n + 2;
        n3 = n + 2;
        u = new double[n1 * n2 * n3];
        v = new double[n1 * n2 * n3];
        r = new double[n1 * n2 * n3];
        rnm2s = new double[nit];
        rnmus = new double[nit];
    }

    /** v: +1 at ten random interior points and -1 at ten others, zero elsewhere; halos filled. */
    public void setup(long seed) {
        Random rng = new Random(seed);
        for (int sign = 1, placed = 0; placed < 20; ) {
            int i1 = 1 + rng.nextInt(n1 - 2);
            int i2 = 1 + rng.nextInt(n2 - 2);
            int i3 = 1 + rng.nextInt(n3 - 2);
            int k = i1 + n1 * (i2 + n2 * i3);
            if (v[k] == 0.0) {
                v[k] = sign;
                placed++;
                if (placed == 10) {
                    sign = -1;
                }
            }
        }
        comm3(v, n1, n2, n3);
    }

    /** {@code nit} sweeps of r = v - A u, then u = u + S r. */
    @Kernels
    public void relax(double[] u, double[] v, double[] r, int n1, int n2, int n3, int nit) {
        double[] u1 = new double[n1];
        double[] u2 = new double[n1];
        double[] r1 = new double[n1];
        double[] r2 = new double[n1];
        for (int it = 0; it < nit; it++) {
            // resid: r = v - A u
            for (int i3 = 1; i3 < n3 - 1; i3++) {
                for (int i2 = 1; i2 < n2 - 1; i2++) {
                    for (int i1 = 0; i1 < n1; i1++) {
                        u1[i1] = u[i1 + n1 * (i2 - 1 + n2 * i3)] + u[i1 + n1 * (i2 + 1 + n2 * i3)]
                                + u[i1 + n1 * (i2 + n2 * (i3 - 1))] + u[i1 + n1 * (i2 + n2 * (i3 + 1))];
                        u2[i1] = u[i1 + n1 * (i2 - 1 + n2 * (i3 - 1))] + u[i1 + n1 * (i2 + 1 + n2 * (i3 - 1))]
                                + u[i1 + n1 * (i2 - 1 + n2 * (i3 + 1))] + u[i1 + n1 * (i2 + 1 + n2 * (i3 + 1))];
                    }
                    for (int i1 = 1; i1 < n1 - 1; i1++) {
                        r[i1 + n1 * (i2 + n2 * i3)] = v[i1 + n1 * (i2 + n2 * i3)]
                                - a[0] * u[i1 + n1 * (i2 + n2 * i3)]
                                - a[2] * (u2[i1] + u1[i1 - 1] + u1[i1 + 1])
                                - a[3] * (u2[i1 - 1] + u2[i1 + 1]);
                    }
                }
            }
            comm3(r, n1, n2, n3);
            norm2u3(r, n1, n2, n3);
            rnm2s[it] = rnm2;
            rnmus[it] = rnmu;

            // psinv: u = u + S r
            for (int i3 = 1; i3 < n3 - 1; i3++) {
                for (int i2 = 1; i2 < n2 - 1; i2++) {
                    for (int i1 = 0; i1 < n1; i1++) {
                        r1[i1] = r[i1 + n1 * (i2 - 1 + n2 * i3)] + r[i1 + n1 * (i2 + 1 + n2 * i3)]
                                + r[i1 + n1 * (i2 + n2 * (i3 - 1))] + r[i1 + n1 * (i2 + n2 * (i3 + 1))];
                        r2[i1] = r[i1 + n1 * (i2 - 1 + n2 * (i3 - 1))] + r[i1 + n1 * (i2 + 1 + n2 * (i3 - 1))]
                                + r[i1 + n1 * (i2 - 1 + n2 * (i3 + 1))] + r[i1 + n1 * (i2 + 1 + n2 * (i3 + 1))];
                    }
                    for (int i1 = 1; i1 < n1 - 1; i1++) {
                        u[i1 + n1 * (i2 + n2 * i3)] = u[i1 + n1 * (i2 + n2 * i3)]
                                + c[0] * r[i1 + n1 * (i2 + n2 * i3)]
                                + c[1] * (r[i1 - 1 + n1 * (i2 + n2 * i3)] + r[i1 + 1 + n1 * (i2 + n2 * i3)] + r1[i1])
                                + c[2] * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
                    }
                }
            }
            comm3(u, n1, n2, n3);
        }
    }

    /** The root mean square ({@link #rnm2}) and largest magnitude ({@link #rnmu}) of r's interior. */
    @Kernels
    public void norm2u3(double[] r, int n1, int n2, int n3) {
        double s = 0.0;
        double max = 0.0;
        for (int i3 = 1; i3 < n3 - 1; i3++) {
            for (int i2 = 1; i2 < n2 - 1; i2++) {
                for (int i1 = 1; i1 < n1 - 1; i1++) {
                    s = s + r[i1 + n1 * (i2 + n2 * i3)] * r[i1 + n1 * (i2 + n2 * i3)];
                    double tmp = Math.abs(r[i1 + n1 * (i2 + n2 * i3)]);
                    if (tmp > max) {
                        max = tmp;
                    }
                }
            }
        }
        rnm2 = Math.sqrt(s / ((double) (n1 - 2) * (n2 - 2) * (n3 - 2)));
        rnmu = max;
    }

    /** The periodic halo exchange: each face plane gets the interior plane at the opposite side. */
    public void comm3(double[] u, int n1, int n2, int n3) {
        for (int i3 = 1; i3 < n3 - 1; i3++) {
            for (int i2 = 1; i2 < n2 - 1; i2++) {
                u[n1 * (i2 + n2 * i3)] = u[n1 - 2 + n1 * (i2 + n2 * i3)];
                u[n1 - 1 + n1 * (i2 + n2 * i3)] = u[1 + n1 * (i2 + n2 * i3)];
            }
        }
        for (int i3 = 1; i3 < n3 - 1; i3++) {
            for (int i1 = 0; i1 < n1; i1++) {
                u[i1 + n1 * (n2 * i3)] = u[i1 + n1 * (n2 - 2 + n2 * i3)];
                u[i1 + n1 * (n2 - 1 + n2 * i3)] = u[i1 + n1 * (1 + n2 * i3)];
            }
        }
        for (int i2 = 0; i2 < n2; i2++) {
            for (int i1 = 0; i1 < n1; i1++) {
                u[i1 + n1 * i2] = u[i1 + n1 * (i2 + n2 * (n3 - 2))];
                u[i1 + n1 * (i2 + n2 * (n3 - 1))] = u[i1 + n1 * (i2 + n2)];
            }
        }
    }

    /** Null when every sweep lowered the residual's root mean square. */
    public String verify() {
        for (int it = 1; it < rnm2s.length; it++) {
            if (!(rnm2s[it] < rnm2s[it - 1])) {
                return "the residual did not fall at sweep " + it + ": " + rnm2s[it - 1] + " -> " + rnm2s[it];
            }
        }
        return rnm2s.length > 0 && !(rnm2s[0] > 0.0) ? "the first residual is " + rnm2s[0] : null;
    }

    public Checksum checksum() {
        return new Checksum().add(u).add(r).add(v).add(rnm2s).add(rnmus).add(rnm2).add(rnmu);
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 32);
        int nit = Report.arg(args, 1, 4);
        MG mg = new MG(n, nit);
        mg.setup(SEED);
        Report.title("MG", n + "^3 interior points (" + mg.n1 + "^3 with halos), " + nit + " sweeps");
        long t0 = System.nanoTime();
        mg.relax(mg.u, mg.v, mg.r, mg.n1, mg.n2, mg.n3, nit);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        Report.checksum(mg.checksum());
        Report.result("rnm2", mg.rnm2);
        Report.result("rnmu", mg.rnmu);
        for (int it = 0; it < nit; it++) {
            System.out.printf("  sweep %3d  residual rms = %.6e  max = %.6e%n", it, mg.rnm2s[it], mg.rnmus[it]);
        }
        System.out.printf("  time: %.3f s, %.3f ms per sweep%n", seconds, 1e3 * seconds / Math.max(1, nit));
        Report.verification(mg.verify());
    }
}
