package org.acc4j.templates.scan;

import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Scans;
import org.acc4j.templates.reduce.ReduceOrder;

/**
 * The host's mirror of {@link Scans}: the same grouping of the operation, element for element, for the run in which
 * each tile's look-back meets the inclusive prefix of the tile just before it (the grouping is exactly the device's
 * then; in a run where a tile adds some aggregates first, only float sums and products may differ, in their last
 * bits). For integers, and MIN and MAX of any kind, every grouping gives Java's sequential result. Values are raw
 * bits ({@link ReduceOrder#apply}).
 */
public final class ScanOrder {
    private static final int WARP = 32;

    private ScanOrder() {
    }

    /**
     * {@code out[i]} for {@code 0 <= i < in.length}, as the device writes it: {@code s0 op in[0] op ... op in[i]}
     * (inclusive) or up to {@code in[i - 1]} (exclusive).
     */
    public static long[] scan(Op op, Kind kind, boolean inclusive, long s0, long[] in) {
        int threads = Scans.THREADS;
        int items = Scans.items(kind);
        int tile = Scans.tileElements(kind);
        long identity = org.acc4j.templates.Reductions.identityBits(op, kind);
        long[] out = new long[in.length];
        long prefix = s0;
        for (int base = 0; base < in.length; base += tile) {
            long run = identity;
            long[] local = new long[tile];
            for (int row = 0; row < items; row++) {
                long[] x = new long[threads];
                for (int t = 0; t < threads; t++) {
                    int i = base + row * threads + t;
                    x[t] = i < in.length ? in[i] : identity;
                }
                long[] incl = new long[threads];
                long[] warpTotals = new long[threads / WARP];
                for (int w = 0; w < threads / WARP; w++) {
                    long[] lane = new long[WARP];
                    System.arraycopy(x, w * WARP, lane, 0, WARP);
                    for (int d = 1; d < WARP; d *= 2) {
                        long[] next = lane.clone();
                        for (int l = d; l < WARP; l++) {
                            next[l] = ReduceOrder.apply(op, kind, lane[l - d], lane[l]);
                        }
                        lane = next;
                    }
                    System.arraycopy(lane, 0, incl, w * WARP, WARP);
                    warpTotals[w] = lane[WARP - 1];
                }
                long rowTotal = identity;
                for (long wt : warpTotals) {
                    rowTotal = ReduceOrder.apply(op, kind, rowTotal, wt);
                }
                for (int t = 0; t < threads; t++) {
                    int w = t / WARP;
                    long offset = identity;
                    for (int v = 0; v < w; v++) {
                        offset = ReduceOrder.apply(op, kind, offset, warpTotals[v]);
                    }
                    long own = inclusive ? incl[t] : (t % WARP == 0 ? identity : incl[t - 1]);
                    local[row * threads + t] = ReduceOrder.apply(op, kind, ReduceOrder.apply(op, kind, run, offset), own);
                }
                run = ReduceOrder.apply(op, kind, run, rowTotal);
            }
            for (int j = 0; j < tile && base + j < in.length; j++) {
                out[base + j] = ReduceOrder.apply(op, kind, prefix, local[j]);
            }
            // the next tile's look-back meets this tile's inclusive prefix
            prefix = ReduceOrder.apply(op, kind, prefix, run);
        }
        return out;
    }
}
