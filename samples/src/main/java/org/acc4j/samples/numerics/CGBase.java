package org.acc4j.samples.numerics;

import java.util.Random;
import java.util.TreeMap;

/**
 * The data of the conjugate-gradient benchmark, as NPB's {@code CGBase} holds it: the sparse matrix in compressed
 * row storage ({@code rowstr}, {@code colidx}, {@code a}), the work vectors, the reduction results
 * ({@code dmaster}, {@code rhomaster}, {@code rnormmaster}) and the timers. {@link CG} does the work.
 */
public abstract class CGBase {
    public static final int T_INIT = 0;
    public static final int T_BENCH = 1;
    public static final int T_CONJ_GRAD = 2;
    public static final int T_MATVEC = 3;
    public static final int T_LAST = 4;

    protected final int na;
    protected final int nonzer;
    protected final int niter;
    protected final int cgitmax = 25;

    protected int[] rowstr;
    protected int[] colidx;
    protected double[] a;

    protected double[] x;
    protected double[] z;
    protected double[] p;
    protected double[] q;
    protected double[] r;

    protected double[] dmaster = new double[1];
    protected double[] rhomaster = new double[1];
    protected double[] rnormmaster = new double[1];

    protected final Timer timer = new Timer(T_LAST);

    protected CGBase(int na, int nonzer, int niter) {
        this.na = na;
        this.nonzer = nonzer;
        this.niter = niter;
    }

    /**
     * A random symmetric positive definite matrix: each row gets {@code nonzer} off-diagonal entries in [-1, 1) at
     * random columns, mirrored to keep the matrix symmetric, and a diagonal that exceeds the sum of the absolute
     * values in its row by 1 (so every eigenvalue is at least 1, by Gershgorin).
     */
    protected void makea(long seed) {
        Random rng = new Random(seed);
        @SuppressWarnings("unchecked")
        TreeMap<Integer, Double>[] rows = new TreeMap[na];
        for (int i = 0; i < na; i++) {
            rows[i] = new TreeMap<>();
        }
        for (int i = 0; i < na; i++) {
            for (int k = 0; k < nonzer; k++) {
                int j = rng.nextInt(na);
                if (j == i) {
                    continue;
                }
                double v = rng.nextDouble() * 2.0 - 1.0;
                rows[i].merge(j, v, Double::sum);
                rows[j].merge(i, v, Double::sum);
            }
        }
        int nnz = 0;
        for (int i = 0; i < na; i++) {
            double off = 0.0;
            for (double v : rows[i].values()) {
                off += Math.abs(v);
            }
            rows[i].put(i, off + 1.0);
            nnz += rows[i].size();
        }
        rowstr = new int[na + 1];
        colidx = new int[nnz];
        a = new double[nnz];
        int k = 0;
        for (int i = 0; i < na; i++) {
            rowstr[i] = k;
            for (var e : rows[i].entrySet()) {
                colidx[k] = e.getKey();
                a[k] = e.getValue();
                k++;
            }
        }
        rowstr[na] = k;
        x = new double[na];
        z = new double[na];
        p = new double[na];
        q = new double[na];
        r = new double[na];
    }

    /** The number of stored non-zeros. */
    public int nonzeros() {
        return rowstr[na];
    }
}
