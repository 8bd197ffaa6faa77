package org.acc4j.compiler.interp;

import java.lang.reflect.Array;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Function;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Linear;
import org.acc4j.compiler.pass.Tiling;

/**
 * Runs a tiled kernel of {@link Tiling} on the host as its PTX runs: every block of the grid, every tile the block
 * takes, each thread's loads and stores with the kernel's index arithmetic (32-bit, wrapping), the shared tile as
 * an array with one slot per element of the block's tile, and each barrier as the end of a phase. It checks what a
 * device would not: a thread that reads a shared slot no thread of its block wrote in the phase before the
 * barrier, two threads writing one slot in a phase, an element of the output written twice in a launch (a race),
 * and an access out of bounds (the host proved them in bounds, so one is a compiler bug).
 */
final class TiledRun {
    private final Function<ArrayRef.Source, Object> sources;
    private final Evaluator host;

    TiledRun(Function<ArrayRef.Source, Object> sources, Evaluator host) {
        this.sources = sources;
        this.host = host;
    }

    /** One launch of the transpose kernel with the grid {@code grid}. */
    void transpose(Tiling.Transpose t, int[] grid) {
        Var read = t.readLoop().index();
        Var write = t.writeLoop().index();
        long[] rr = range(t.readLoop());
        long[] wr = range(t.writeLoop());
        int[] srcRow = t.src().row() == null ? null : form(t.src().row(), read, write);
        int[] srcIdx = form(t.src().index(), read, write);
        int[] dstRow = t.dst().row() == null ? null : form(t.dst().row(), read, write);
        int[] dstIdx = form(t.dst().index(), read, write);
        Object src = sources.apply(t.src().array().source());
        Object dst = sources.apply(t.dst().array().source());
        distinct(src, dst, t);
        int tile = Tiling.TILE;
        int padded = Tiling.PADDED;
        long tilesR = (rr[1] + tile - 1) / tile;
        long tilesW = (wr[1] + tile - 1) / tile;
        Map<Object, Map<Integer, Integer>> written = new IdentityHashMap<>();
        for (int by = 0; by < grid[1]; by++) {
            for (int bx = 0; bx < grid[0]; bx++) {
                int block = by * grid[0] + bx;
                for (long tw = by; tw < tilesW; tw += grid[1]) {
                    for (long tr = bx; tr < tilesR; tr += grid[0]) {
                        Object[] shared = new Object[tile * padded];
                        int[] writer = new int[tile * padded];
                        java.util.Arrays.fill(writer, -1);
                        long r0 = tr * tile;
                        long w0 = tw * tile;
                        // phase 1: each thread reads along the read loop into tile[ty + 8k][tx]
                        for (int ty = 0; ty < Tiling.ROWS; ty++) {
                            for (int tx = 0; tx < tile; tx++) {
                                for (int k = 0; k < tile / Tiling.ROWS; k++) {
                                    long ro = r0 + tx;
                                    long wo = w0 + ty + (long) k * Tiling.ROWS;
                                    if (ro >= rr[1] || wo >= wr[1]) {
                                        continue;
                                    }
                                    int vr = (int) (rr[0] + ro);
                                    int vw = (int) (wr[0] + wo);
                                    int slot = (ty + k * Tiling.ROWS) * padded + tx;
                                    if (writer[slot] >= 0) {
                                        throw new KernelInterpreter.Race("tiled kernel: shared slot " + slot
                                                + " written by two threads of block " + block);
                                    }
                                    writer[slot] = ty * tile + tx;
                                    Object[] at = element(src, srcRow, srcIdx, vr, vw, t.src().array());
                                    shared[slot] = Evaluator.element(at[0], (Integer) at[1]);
                                }
                            }
                        }
                        // barrier; phase 2: each thread writes along the write loop from tile[tx][ty + 8k]
                        for (int ty = 0; ty < Tiling.ROWS; ty++) {
                            for (int tx = 0; tx < tile; tx++) {
                                for (int k = 0; k < tile / Tiling.ROWS; k++) {
                                    long wo = w0 + tx;
                                    long ro = r0 + ty + (long) k * Tiling.ROWS;
                                    if (ro >= rr[1] || wo >= wr[1]) {
                                        continue;
                                    }
                                    int vr = (int) (rr[0] + ro);
                                    int vw = (int) (wr[0] + wo);
                                    int slot = tx * padded + ty + k * Tiling.ROWS;
                                    if (writer[slot] < 0) {
                                        throw new AssertionError("acc4j compiler bug: the tiled kernel reads shared"
                                                + " slot " + slot + ", which no thread wrote before the barrier");
                                    }
                                    Object[] at = element(dst, dstRow, dstIdx, vr, vw, t.dst().array());
                                    int index = (Integer) at[1];
                                    Integer before = written.computeIfAbsent(at[0], x -> new HashMap<>())
                                            .put(index, block);
                                    if (before != null) {
                                        throw new KernelInterpreter.Race("tiled kernel: element " + index + " of "
                                                + t.dst().array().name() + " written twice");
                                    }
                                    Evaluator.store(at[0], index, shared[slot]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /** As the runtime refuses a call that binds an array the nest writes in two places, so does this run. */
    private static void distinct(Object src, Object dst, Tiling.Transpose t) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        for (Object a : new Object[] {src, dst}) {
            java.util.List<Object> parts = new java.util.ArrayList<>(java.util.List.of(a));
            if (a instanceof Object[] rows) {
                parts.addAll(java.util.Arrays.asList(rows));
            }
            for (Object part : parts) {
                if (part != null && seen.put(part, Boolean.TRUE) != null) {
                    throw new KernelInterpreter.HostInstead("the same array is reachable from both "
                            + t.src().array().name() + " and " + t.dst().array().name() + ", and the region writes "
                            + t.dst().array().name());
                }
            }
        }
    }

    /** The array (a row of a two-dimensional one) and the subscript, checked in bounds. */
    private static Object[] element(Object array, int[] row, int[] index, int vr, int vw, ArrayRef a) {
        Object data = array;
        if (row != null) {
            int ri = subscript(row, vr, vw);
            inBounds(array, ri, a);
            data = ((Object[]) array)[ri];
        }
        int ci = subscript(index, vr, vw);
        inBounds(data, ci, a);
        return new Object[] {data, ci};
    }

    private static void inBounds(Object array, int index, ArrayRef a) {
        if (index < 0 || index >= Array.getLength(array)) {
            throw new AssertionError("acc4j compiler bug: the bounds proof of " + a.name() + " held, but the tiled"
                    + " kernel's index " + index + " is out of bounds for length " + Array.getLength(array));
        }
    }

    private static int subscript(int[] f, int vr, int vw) {
        return f[0] * vr + f[1] * vw + f[2];
    }

    private int[] form(Linear.Form f, Var read, Var write) {
        Expr cr = f.coefficient(read);
        Expr cw = f.coefficient(write);
        return new int[] {cr == null ? 0 : (int) host.evalLong(cr), cw == null ? 0 : (int) host.evalLong(cw),
                (int) host.evalLong(f.rest())};
    }

    /** Lower bound and trip count, as the kernel computes them. */
    private long[] range(Stmt.For f) {
        long lo = (int) host.evalLong(f.lower());
        long hi = (int) host.evalLong(f.bound());
        long n = Math.max(0, hi - lo + (f.cond() == org.acc4j.compiler.ir.Cond.LE ? 1 : 0));
        return new long[] {lo, n};
    }
}
