package org.acc4j.jmh;

import java.util.List;
import java.util.SplittableRandom;

/**
 * The plain-Java result a benchmarked call must reproduce bit for bit: for each output argument, the compared
 * element positions and their values (every element, or a seeded sample where the full reference is too slow),
 * and what the method returned (a reduction's value; null for void methods).
 */
final class Expected {
    private final List<Integer> outputs;
    private final int[][] at;
    private final double[][] values;
    /** Per output, the row length for a {@code double[][]} (elements are numbered row by row), else 0. */
    private final int[] cols;
    private final Object returned;
    private final double tolerance;

    private Expected(List<Integer> outputs, int[][] at, double[][] values, int[] cols, Object returned,
                     double tolerance) {
        this.outputs = outputs;
        this.cols = cols;
        this.at = at;
        this.values = values;
        this.returned = returned;
        this.tolerance = tolerance;
    }

    /**
     * Runs the reference on {@code args} (whose outputs it overwrites) and keeps every output element and what it
     * returns, to be matched within {@code tolerance} (relative; 0 for bit for bit) when it is a double.
     */
    static Expected full(Kernel reference, Object[] args, List<Integer> outputs, double tolerance) {
        Object returned = reference.call(args);
        double[][] values = new double[outputs.size()][];
        int[] cols = new int[outputs.size()];
        for (int o = 0; o < outputs.size(); o++) {
            Object out = args[outputs.get(o)];
            if (out instanceof double[][] rows) {
                cols[o] = rectangular(rows);
                values[o] = new double[rows.length * cols[o]];
                for (int r = 0; r < rows.length; r++) {
                    System.arraycopy(rows[r], 0, values[o], r * cols[o], cols[o]);
                }
            } else {
                values[o] = (double[]) out;
            }
        }
        return new Expected(outputs, null, values, cols, returned, tolerance);
    }

    /**
     * DGEMM's c (argument 2) of {@code (a, b, c, m, n, p)} at {@code samples} seeded positions, each a plain dot
     * product summed in the kernels' order (k = 0, 1, ...), as {@code Dgemm.main} checks n = 4096. The matrices are
     * flat {@code double[]} or {@code double[][]} (then positions number the elements row by row).
     */
    static Expected sampledDgemm(Object[] args, int samples) {
        if (args[0] instanceof double[][] a2) {
            int n = (int) args[4];
            Object[] flat = args.clone();
            flat[0] = flatten(a2, (int) args[5]);
            flat[1] = flatten((double[][]) args[1], n);
            Expected e = sampledDgemm(flat, samples);
            return new Expected(e.outputs, e.at, e.values, new int[] {n}, null, 0);
        }
        double[] a = (double[]) args[0];
        double[] b = (double[]) args[1];
        int m = (int) args[3];
        int n = (int) args[4];
        int p = (int) args[5];
        SplittableRandom random = new SplittableRandom(4096);
        int[] at = new int[samples];
        double[] values = new double[samples];
        for (int e = 0; e < samples; e++) {
            int i = random.nextInt(m);
            int j = random.nextInt(n);
            double s = 0.0;
            for (int k = 0; k < p; k++) {
                s += a[i * p + k] * b[k * n + j];
            }
            at[e] = i * n + j;
            values[e] = s;
        }
        return new Expected(List.of(2), new int[][] {at}, new double[][] {values}, new int[1], null, 0);
    }

    private static double[] flatten(double[][] rows, int cols) {
        double[] flat = new double[rows.length * cols];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, flat, r * cols, cols);
        }
        return flat;
    }

    private static int rectangular(double[][] rows) {
        int cols = rows.length == 0 ? 0 : rows[0].length;
        for (double[] row : rows) {
            if (row.length != cols) {
                throw new IllegalArgumentException("the benchmarks' double[][] outputs are rectangular");
            }
        }
        return cols;
    }

    /** Whether only some elements are compared. */
    boolean sampled() {
        return at != null;
    }

    /** The first difference from {@code args}' outputs and {@code returned}, or null where they agree. */
    String difference(Object[] args, Object returned) {
        if (this.returned != null && !sameValue(this.returned, returned)) {
            return "returned " + returned + ", expected " + this.returned;
        }
        for (int o = 0; o < outputs.size(); o++) {
            Object out = args[outputs.get(o)];
            double[] flat = out instanceof double[] d ? d : null;
            double[][] rows = out instanceof double[][] r ? r : null;
            double[] v = values[o];
            int count = at == null ? v.length : at[o].length;
            for (int e = 0; e < count; e++) {
                int i = at == null ? e : at[o][e];
                double actual = flat != null ? flat[i] : rows[i / cols[o]][i % cols[o]];
                if (Double.doubleToLongBits(actual) != Double.doubleToLongBits(v[e])) {
                    String where = flat != null ? "[" + i + "]" : "[" + i / cols[o] + "][" + i % cols[o] + "]";
                    return "argument " + outputs.get(o) + " " + where + " is " + actual + ", expected " + v[e];
                }
            }
        }
        return null;
    }

    private boolean sameValue(Object expected, Object actual) {
        if (expected instanceof Double e && actual instanceof Double a) {
            return tolerance == 0 ? Double.doubleToLongBits(e) == Double.doubleToLongBits(a)
                    : Math.abs(e - a) <= tolerance * Math.abs(e);
        }
        return expected.equals(actual);
    }
}
