package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * The conjugate-gradient benchmark in the manner of NPB CG: inverse power iteration for the smallest eigenvalue of
 * a sparse symmetric positive definite matrix, each step solving {@code A z = x} with 25 unpreconditioned CG
 * iterations. {@code zeta = 1 / (x . z)} estimates the smallest eigenvalue; it never increases from one outer
 * iteration to the next (Rayleigh quotients of power iterates of a positive definite matrix do not decrease), and
 * since every eigenvalue is at least 1 it stays at least 1.
 *
 * <p>Run: {@code java CG [na [nonzer [niter]]]} (defaults 1400, 7, 15: NPB's class S shape).
 */
public class CG extends CGBase {
    static final long SEED = 314159265L;

    protected double rho;
    protected double rho0;
    protected double alpha;
    protected double beta;
    protected double rnorm;
    protected double zeta;
    protected final double[] zetas;
    protected final double[] rnorms;

    public CG(int na, int nonzer, int niter) {
        super(na, nonzer, niter);
        zetas = new double[niter];
        rnorms = new double[niter];
    }

    /** Sets up the matrix and the starting vector x = (1, ..., 1) / sqrt(na), of unit length. */
    public void setup(long seed) {
        timer.start(T_INIT);
        makea(seed);
        double unit = 1.0 / Math.sqrt(na);
        for (int j = 0; j < na; j++) {
            x[j] = unit;
        }
        timer.stop(T_INIT);
    }

    /** The benchmark: {@code niter} steps of inverse power iteration. */
    @Kernels
    public void benchmark() {
        timer.start(T_BENCH);
        for (int it = 1; it <= niter; it++) {
            rnorm = conjGrad();
            double tnorm1 = 0.0;
            double tnorm2 = 0.0;
            for (int j = 0; j < na; j++) {
                tnorm1 = tnorm1 + x[j] * z[j];
                tnorm2 = tnorm2 + z[j] * z[j];
            }
            tnorm2 = 1.0 / Math.sqrt(tnorm2);
            zeta = 1.0 / tnorm1;
            zetas[it - 1] = zeta;
            rnorms[it - 1] = rnorm;
            for (int j = 0; j < na; j++) {
                x[j] = tnorm2 * z[j];
            }
        }
        timer.stop(T_BENCH);
    }

    /**
     * 25 CG iterations on {@code A z = x} from z = 0; returns {@code ||x - A z||}, also left in
     * {@code rnormmaster[0]}.
     */
    @Kernels
    public double conjGrad() {
        timer.start(T_CONJ_GRAD);
        int n = na;
        for (int j = 0; j < n; j++) {
            q[j] = 0.0;
            z[j] = 0.0;
            r[j] = x[j];
            p[j] = r[j];
        }
        double sum = 0.0;
        for (int j = 0; j < n; j++) {
            sum = sum + r[j] * r[j];
        }
        rho = sum;

        for (int cgit = 1; cgit <= cgitmax; cgit++) {
            // q = A p
            timer.start(T_MATVEC);
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = rowstr[j]; k < rowstr[j + 1]; k++) {
                    s = s + a[k] * p[colidx[k]];
                }
                q[j] = s;
            }
            timer.stop(T_MATVEC);

            double d = 0.0;
            for (int j = 0; j < n; j++) {
                d = d + p[j] * q[j];
            }
            dmaster[0] = d;
            alpha = rho / d;
            rho0 = rho;

            // z = z + alpha p, r = r - alpha q
            for (int j = 0; j < n; j++) {
                z[j] = z[j] + alpha * p[j];
                r[j] = r[j] - alpha * q[j];
            }

            sum = 0.0;
            for (int j = 0; j < n; j++) {
                sum = sum + r[j] * r[j];
            }
            rhomaster[0] = sum;
            rho = sum;
            beta = rho / rho0;

            // p = r + beta p
            for (int j = 0; j < n; j++) {
                p[j] = r[j] + beta * p[j];
            }
        }

        // the residual ||x - A z||, with r = A z
        for (int j = 0; j < n; j++) {
            double d = 0.0;
            for (int k = rowstr[j]; k < rowstr[j + 1]; k++) {
                d = d + a[k] * z[colidx[k]];
            }
            r[j] = d;
        }
        sum = 0.0;
        for (int j = 0; j < n; j++) {
            double d = x[j] - r[j];
            sum = sum + d * d;
        }
        rnormmaster[0] = Math.sqrt(sum);
        timer.stop(T_CONJ_GRAD);
        return rnormmaster[0];
    }

    /** Null when the run is consistent: every residual small, zeta at least 1 and never increasing. */
    public String verify() {
        for (int it = 0; it < niter; it++) {
            if (!(rnorms[it] < 1.0e-10)) {
                return "CG residual " + rnorms[it] + " at iteration " + (it + 1) + " is not below 1e-10";
            }
            if (!(zetas[it] >= 1.0 - 1.0e-12)) {
                return "zeta " + zetas[it] + " at iteration " + (it + 1) + " is below the smallest possible eigenvalue 1";
            }
            if (it > 0 && !(zetas[it] <= zetas[it - 1] * (1.0 + 1.0e-12))) {
                return "zeta rose from " + zetas[it - 1] + " to " + zetas[it] + " at iteration " + (it + 1);
            }
        }
        return null;
    }

    public Checksum checksum() {
        return new Checksum().add(x).add(z).add(p).add(q).add(r).add(zetas).add(rnorms).add(rho).add(rho0)
                .add(alpha).add(beta).add(rnorm).add(zeta).add(dmaster).add(rhomaster).add(rnormmaster);
    }

    public static void main(String[] args) {
        int na = Report.arg(args, 0, 1400);
        int nonzer = Report.arg(args, 1, 7);
        int niter = Report.arg(args, 2, 15);
        CG cg = new CG(na, nonzer, niter);
        cg.setup(SEED);
        Report.title("CG", "na = " + na + ", nonzer = " + nonzer + ", niter = " + niter + ", nnz = " + cg.nonzeros());
        cg.benchmark();
        Report.checksum(cg.checksum());
        Report.result("zeta", cg.zeta);
        Report.result("rnorm", cg.rnorm);
        for (int it = 0; it < niter; it++) {
            System.out.printf("  iteration %3d  ||r|| = %.6e  zeta = %.15f%n", it + 1, cg.rnorms[it], cg.zetas[it]);
        }
        System.out.printf("  time: init %.3f s, benchmark %.3f s (conj_grad %.3f s, mat-vec %.3f s), %.3f ms per iteration%n",
                cg.timer.read(T_INIT), cg.timer.read(T_BENCH), cg.timer.read(T_CONJ_GRAD), cg.timer.read(T_MATVEC),
                1e3 * cg.timer.read(T_BENCH) / niter);
        Report.verification(cg.verify());
    }
}
