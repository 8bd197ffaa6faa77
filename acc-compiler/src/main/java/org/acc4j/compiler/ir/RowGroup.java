package org.acc4j.compiler.ir;

/**
 * A loop over the rows of a matrix in compressed row storage whose inner loop sums one row, run with a group of
 * lanes per row: {@code for (r ...) { s = s0; for (k = offsets[r]; k < offsets[r + 1]; k++) s += e(k); post(s); }}.
 * The lanes of a group take the row's elements in turn ({@code k = offsets[r] + lane}, step the group's size), add
 * their partial sums across the group with warp shuffles, and the group's first lane runs the statements after the
 * inner loop. With one lane per group it is Java's loop, one thread per row.
 *
 * @param rows the parallel loop over the rows (the region's loop)
 * @param inner the loop over one row's elements
 * @param sum the local the inner loop accumulates into
 * @param offsets the row offsets, an {@code int[]} read at {@code r} and {@code r + 1}; null for a dense row (the
 *     inner loop's bounds are other expressions of the row), whose lanes the vector clause fixes
 * @param lanes lanes per row: {@link #AUTO} (chosen at each launch from the mean row length) or a power of two up to
 *     {@link #MAX_LANES}
 * @param reassociates whether the lanes reorder a {@code float} or {@code double} sum (which the user allowed with
 *     the inner loop's {@code vector} clause); integer sums are exact in any order
 */
public record RowGroup(Stmt.For rows, Stmt.For inner, Var sum, ArrayRef offsets, int lanes, boolean reassociates) {
    /** Lanes per row chosen at launch. */
    public static final int AUTO = 0;
    /** At most a warp per row. */
    public static final int MAX_LANES = 32;

    /** The value the lanes other than the first start from: {@code -0.0} for floating point (so a sum of {@code -0.0}s stays one), else 0. */
    public long identityBits() {
        return switch (sum.type()) {
            case F32 -> 0x80000000L;
            case F64 -> 0x8000000000000000L;
            default -> 0L;
        };
    }

    /**
     * The lanes per row for one launch over rows {@code [first, first + count)}, and why: the row offsets are first
     * checked to be monotonic (the run-time test of Seyong Lee, Seung-Jai Min and Rudolf Eigenmann, <i>OpenMP to
     * GPGPU: A Compiler Framework for Automatic Translation and Optimization</i>, for their loop collapsing of
     * irregular loops); when they are, {@link #AUTO} takes the largest power of two at or below the mean row length
     * (at least 1, at most a warp). When they are not, the mean means nothing and one lane per row runs (each row still gets exactly
     * Java's iterations: the lanes only split them).
     *
     * @param offsets the host's row offsets
     * @param monotonic whether {@code offsets[first..first + count]} were found non-decreasing (see {@link #monotonic})
     */
    public Choice choose(int[] offsets, long first, long count, boolean monotonic) {
        if (offsets() == null) {
            return new Choice(lanes, lanes + " lanes per row, a vector reduction per row as the vector clause asks");
        }
        if (!monotonic) {
            return new Choice(1, "the row offsets " + offsets().name() + " are not monotonic over rows " + first
                    + ".." + (first + count) + ": one thread per row");
        }
        if (lanes != AUTO) {
            return new Choice(lanes, lanes + " lanes per row, as the vector clause asks");
        }
        long nnz = (long) offsets[(int) (first + count)] - offsets[(int) first];
        double mean = count == 0 ? 0 : (double) nnz / count;
        // the largest power of two at or below the mean: rows shorter than the group leave lanes idle (on the H100 a
        // 5-point Laplacian's rows of 5 ran at 0.99 of a copy with 4 lanes and 0.57 with 8)
        int g = 1;
        while (g < MAX_LANES && 2 * g <= mean) {
            g <<= 1;
        }
        return new Choice(g, String.format(java.util.Locale.ROOT, "%d lane%s per row (mean row length %.1f)",
                g, g == 1 ? "" : "s", mean));
    }

    /**
     * Whether {@code offsets[first..first + count]} (inclusive) lie in the array, start at 0 or above and never
     * decrease.
     */
    public static boolean monotonic(int[] offsets, long first, long count) {
        if (first < 0 || first + count >= offsets.length || offsets[(int) first] < 0) {
            return false;
        }
        for (int i = (int) first; i < first + count; i++) {
            if (offsets[i] > offsets[i + 1]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The device's bits for one row of a {@code double} sum {@code s0 + terms[0] + terms[1] + ...} run with
     * {@code lanes} lanes: lane {@code j} adds {@code terms[j], terms[j + lanes], ...} to {@code s0} (lane 0) or to
     * {@code -0.0}, then the lanes add across the group by butterfly steps of {@code lanes/2, ..., 1}. One lane is
     * Java's order.
     */
    public static double laneOrderSum(double s0, double[] terms, int lanes) {
        double[] part = new double[lanes];
        for (int j = 0; j < lanes; j++) {
            part[j] = j == 0 ? s0 : -0.0;
            for (int k = j; k < terms.length; k += lanes) {
                part[j] += terms[k];
            }
        }
        for (int off = lanes / 2; off > 0; off /= 2) {
            double[] next = new double[lanes];
            for (int j = 0; j < lanes; j++) {
                next[j] = part[j] + part[j ^ off];
            }
            part = next;
        }
        return part[0];
    }

    /** As {@link #laneOrderSum(double, double[], int)} for {@code float}. */
    public static float laneOrderSum(float s0, float[] terms, int lanes) {
        float[] part = new float[lanes];
        for (int j = 0; j < lanes; j++) {
            part[j] = j == 0 ? s0 : -0.0f;
            for (int k = j; k < terms.length; k += lanes) {
                part[j] += terms[k];
            }
        }
        for (int off = lanes / 2; off > 0; off /= 2) {
            float[] next = new float[lanes];
            for (int j = 0; j < lanes; j++) {
                next[j] = part[j] + part[j ^ off];
            }
            part = next;
        }
        return part[0];
    }

    /** A launch's lanes per row (a power of two) and the reason, for the report. */
    public record Choice(int lanes, String why) {
        /** log2 of {@link #lanes}, the kernel's parameter. */
        public int log2() {
            return Integer.numberOfTrailingZeros(lanes);
        }
    }
}
