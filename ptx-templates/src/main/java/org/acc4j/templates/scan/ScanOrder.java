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
        int warps = threads / WARP;
        for (int base = 0; base < in.length; base += tile) {
            // each thread's consecutive elements scanned in order; the identity beyond the end
            long[][] own = new long[threads][items];
            long[] totals = new long[threads];
            for (int t = 0; t < threads; t++) {
                for (int k = 0; k < items; k++) {
                    int i = base + t * items + k;
                    long x = i < in.length ? in[i] : identity;
                    own[t][k] = k == 0 ? x : ReduceOrder.apply(op, kind, own[t][k - 1], x);
                }
                totals[t] = own[t][items - 1];
            }
            // the totals scanned across each warp (Hillis and Steele, as the shuffles do it)
            long[] lanes = new long[threads];
            long[] warpTotals = new long[warps];
            for (int w = 0; w < warps; w++) {
                long[] lane = new long[WARP];
                System.arraycopy(totals, w * WARP, lane, 0, WARP);
                for (int d = 1; d < WARP; d *= 2) {
                    long[] next = lane.clone();
                    for (int l = d; l < WARP; l++) {
                        next[l] = ReduceOrder.apply(op, kind, lane[l - d], lane[l]);
                    }
                    lane = next;
                }
                System.arraycopy(lane, 0, lanes, w * WARP, WARP);
                warpTotals[w] = lane[WARP - 1];
            }
            long run = warpTotals[0];
            for (int w = 1; w < warps; w++) {
                run = ReduceOrder.apply(op, kind, run, warpTotals[w]);
            }
            for (int t = 0; t < threads; t++) {
                int w = t / WARP;
                long b = prefix;
                if (w > 0) {
                    long before = warpTotals[0];
                    for (int v = 1; v < w; v++) {
                        before = ReduceOrder.apply(op, kind, before, warpTotals[v]);
                    }
                    b = ReduceOrder.apply(op, kind, b, before);
                }
                if (t % WARP != 0) {
                    b = ReduceOrder.apply(op, kind, b, lanes[t - 1]);
                }
                for (int k = 0; k < items; k++) {
                    int i = base + t * items + k;
                    if (i >= in.length) {
                        break;
                    }
                    out[i] = inclusive ? ReduceOrder.apply(op, kind, b, own[t][k])
                            : k == 0 ? b : ReduceOrder.apply(op, kind, b, own[t][k - 1]);
                }
            }
            // the next tile's look-back meets this tile's inclusive prefix
            prefix = ReduceOrder.apply(op, kind, prefix, run);
        }
        return out;
    }
}
