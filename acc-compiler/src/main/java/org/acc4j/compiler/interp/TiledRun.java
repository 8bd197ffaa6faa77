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

    /** One launch of the tiled kernel {@code t} with the grid {@code grid}. */
    void run(Tiling.Kernel t, int[] grid) {
        if (t instanceof Tiling.Transpose tr) {
            transpose(tr, grid);
        } else {
            matmul((Tiling.Matmul) t, grid);
        }
    }

    /**
     * One launch of the matmul kernel with its tile ({@link Tiling.MatmulTile}): per block and C tile, per k tile,
     * the staging phase (each thread's elements of A and of B into the shared buffer {@code kt & 1}, 0 outside the
     * ranges) and the compute phase (each thread's {@code microI × microJ} accumulators, {@code acc + a * b} for
     * each k of the tile in order), a barrier between; then each thread stores its elements of C.
     */
    void matmul(Tiling.Matmul t, int[] grid) {
        if (t.tensorCores()) {
            tensor(t, grid);
            return;
        }
        Var vi = t.i().index();
        Var vj = t.j().index();
        Var vk = t.k().index();
        long[] ri = range(t.i());
        long[] rj = range(t.j());
        long[] rk = range(t.k());
        Object a = sources.apply(t.a().array().source());
        Object b = sources.apply(t.b().array().source());
        Object c = sources.apply(t.c().array().source());
        distinct(a, c, t.a().array().name(), t.c().array().name());
        distinct(b, c, t.b().array().name(), t.c().array().name());
        Tiling.MatmulTile tile = t.tile();
        int bi = tile.blockI();
        int bj = tile.blockJ();
        int bk = tile.depth();
        int tX = tile.threadsX();
        int tY = tile.threadsY();
        int mi = tile.microI();
        int mj = tile.microJ();
        int threads = tile.threads();
        long tilesI = (ri[1] + bi - 1) / bi;
        long tilesJ = (rj[1] + bj - 1) / bj;
        long tilesK = (rk[1] + bk - 1) / bk;
        double init = t.accumulate() ? 0 : Double.longBitsToDouble(t.init().bits());
        Map<Object, Map<Integer, Integer>> written = new IdentityHashMap<>();
        for (int by = 0; by < grid[1]; by++) {
            for (int bx = 0; bx < grid[0]; bx++) {
                int block = by * grid[0] + bx;
                for (long ti = by; ti < tilesI; ti += grid[1]) {
                    for (long tj = bx; tj < tilesJ; tj += grid[0]) {
                        long i0 = ti * bi;
                        long j0 = tj * bj;
                        double[][] acc = new double[threads][mi * mj];
                        for (double[] x : acc) {
                            java.util.Arrays.fill(x, init);
                        }
                        if (t.accumulate()) {
                            // each thread's elements start at their values in c
                            for (int ty = 0; ty < tY; ty++) {
                                for (int tx = 0; tx < tX; tx++) {
                                    for (int qi = 0; qi < mi; qi++) {
                                        for (int qj = 0; qj < mj; qj++) {
                                            long io = i0 + 2 * ty + pair(qi, tY);
                                            long jo = j0 + 2 * tx + pair(qj, tX);
                                            if (io < ri[1] && jo < rj[1]) {
                                                acc[ty * tX + tx][qi * mj + qj] = load(c, t.c(), Map.of(vi,
                                                        (int) (ri[0] + io), vj, (int) (rj[0] + jo)));
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        double[][][] sa = new double[2][bk][bi];
                        double[][][] sb = new double[2][bk][bj];
                        for (long kt = 0; kt < tilesK; kt++) {
                            int buf = (int) (kt & 1);
                            long k0 = kt * bk;
                            boolean[][] setA = new boolean[bk][bi];
                            boolean[][] setB = new boolean[bk][bj];
                            // staging: thread tid loads A at (m = tid / depth + (threads / depth) q, k = tid % depth),
                            // B at (k = tid / blockJ + (threads / blockJ) q, n = tid % blockJ)
                            for (int tid = 0; tid < threads; tid++) {
                                for (int q = 0; q < bi * bk / threads; q++) {
                                    int m = tid / bk + threads / bk * q;
                                    int ka = tid % bk;
                                    double va = 0;
                                    if (i0 + m < ri[1] && k0 + ka < rk[1]) {
                                        va = load(a, t.a(), Map.of(vi, (int) (ri[0] + i0 + m), vk, (int) (rk[0] + k0 + ka)));
                                    }
                                    shared(setA, ka, m, block);
                                    sa[buf][ka][m] = va;
                                }
                                for (int q = 0; q < bk * bj / threads; q++) {
                                    int kb = tid / bj + threads / bj * q;
                                    int n = tid % bj;
                                    double vb = 0;
                                    if (k0 + kb < rk[1] && j0 + n < rj[1]) {
                                        vb = load(b, t.b(), Map.of(vk, (int) (rk[0] + k0 + kb), vj, (int) (rj[0] + j0 + n)));
                                    }
                                    shared(setB, kb, n, block);
                                    sb[buf][kb][n] = vb;
                                }
                            }
                            for (boolean[][] set : new boolean[][][] {setA, setB}) {
                                for (boolean[] row : set) {
                                    for (boolean v : row) {
                                        if (!v) {
                                            throw new AssertionError("acc4j compiler bug: the tiled matmul leaves a"
                                                    + " shared slot unstaged");
                                        }
                                    }
                                }
                            }
                            // barrier; compute
                            long count = Math.min(bk, rk[1] - k0);
                            for (int ty = 0; ty < tY; ty++) {
                                for (int tx = 0; tx < tX; tx++) {
                                    double[] x = acc[ty * tX + tx];
                                    for (int kk = 0; kk < count; kk++) {
                                        for (int qi = 0; qi < mi; qi++) {
                                            for (int qj = 0; qj < mj; qj++) {
                                                double prod = sa[buf][kk][2 * ty + pair(qi, tY)]
                                                        * sb[buf][kk][2 * tx + pair(qj, tX)];
                                                x[qi * mj + qj] = x[qi * mj + qj] + prod;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        for (int ty = 0; ty < tY; ty++) {
                            for (int tx = 0; tx < tX; tx++) {
                                for (int qi = 0; qi < mi; qi++) {
                                    for (int qj = 0; qj < mj; qj++) {
                                        long io = i0 + 2 * ty + pair(qi, tY);
                                        long jo = j0 + 2 * tx + pair(qj, tX);
                                        if (io >= ri[1] || jo >= rj[1]) {
                                            continue;
                                        }
                                        Object[] at = element(c, t.c(), Map.of(vi, (int) (ri[0] + io), vj,
                                                (int) (rj[0] + jo)));
                                        int index = (Integer) at[1];
                                        if (written.computeIfAbsent(at[0], z -> new HashMap<>()).put(index, block) != null) {
                                            throw new KernelInterpreter.Race("tiled kernel: element " + index + " of "
                                                    + t.c().array().name() + " written twice");
                                        }
                                        Evaluator.store(at[0], index, acc[ty * tX + tx][qi * mj + qj]);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * One launch of the tensor-core matmul kernel, each element as the instruction is taken to compute it: per
     * block and tile of C, each element in the ranges starts at its start value and takes
     * {@code fma(a, b, acc)} for every k of every k tile in order, with 0 for a k past the range (as the
     * kernel stages 0 there). The device's tensor cores may round within a step of 4 differently; the tests hold
     * both to the same bound around Java's result.
     */
    private void tensor(Tiling.Matmul t, int[] grid) {
        Var vi = t.i().index();
        Var vj = t.j().index();
        Var vk = t.k().index();
        long[] ri = range(t.i());
        long[] rj = range(t.j());
        long[] rk = range(t.k());
        Object a = sources.apply(t.a().array().source());
        Object b = sources.apply(t.b().array().source());
        Object c = sources.apply(t.c().array().source());
        distinct(a, c, t.a().array().name(), t.c().array().name());
        distinct(b, c, t.b().array().name(), t.c().array().name());
        int bi = t.tensor().blockI();
        int bj = t.tensor().blockJ();
        int depth = t.tensor().depth();
        long tilesI = (ri[1] + bi - 1) / bi;
        long tilesJ = (rj[1] + bj - 1) / bj;
        long kEnd = (rk[1] + depth - 1) / depth * depth;
        double init = t.accumulate() ? 0 : Double.longBitsToDouble(t.init().bits());
        Map<Object, Map<Integer, Integer>> written = new IdentityHashMap<>();
        for (int by = 0; by < grid[1]; by++) {
            for (int bx = 0; bx < grid[0]; bx++) {
                int block = by * grid[0] + bx;
                for (long ti = by; ti < tilesI; ti += grid[1]) {
                    for (long tj = bx; tj < tilesJ; tj += grid[0]) {
                        for (long io = ti * bi; io < Math.min(ri[1], ti * bi + bi); io++) {
                            for (long jo = tj * bj; jo < Math.min(rj[1], tj * bj + bj); jo++) {
                                int iv = (int) (ri[0] + io);
                                int jv = (int) (rj[0] + jo);
                                double acc = t.accumulate() ? load(c, t.c(), Map.of(vi, iv, vj, jv)) : init;
                                for (long k = 0; k < kEnd; k++) {
                                    double x = 0;
                                    double y = 0;
                                    if (k < rk[1]) {
                                        int kv = (int) (rk[0] + k);
                                        x = load(a, t.a(), Map.of(vi, iv, vk, kv));
                                        y = load(b, t.b(), Map.of(vk, kv, vj, jv));
                                    }
                                    acc = Math.fma(x, y, acc);
                                }
                                Object[] at = element(c, t.c(), Map.of(vi, iv, vj, jv));
                                int index = (Integer) at[1];
                                if (written.computeIfAbsent(at[0], z -> new HashMap<>()).put(index, block) != null) {
                                    throw new KernelInterpreter.Race("tiled kernel: element " + index + " of "
                                            + t.c().array().name() + " written twice");
                                }
                                Evaluator.store(at[0], index, acc);
                            }
                        }
                    }
                }
            }
        }
    }

    /** The offset of a thread's {@code q}th element along an axis of {@code n} threads (pairs, as the kernel's). */
    private static int pair(int q, int n) {
        return 2 * n * (q / 2) + (q % 2);
    }

    /** One thread writes each shared slot in a phase. */
    private static void shared(boolean[][] set, int r, int c, int block) {
        if (set[r][c]) {
            throw new KernelInterpreter.Race("tiled kernel: a shared slot written by two threads of block " + block);
        }
        set[r][c] = true;
    }

    private double load(Object array, Tiling.Access a, Map<Var, Integer> values) {
        Object[] at = element(array, a, values);
        return (Double) Evaluator.element(at[0], (Integer) at[1]);
    }

    private Object[] element(Object array, Tiling.Access a, Map<Var, Integer> values) {
        Object data = array;
        if (a.row() != null) {
            int ri = subscript(a.row(), values);
            inBounds(array, ri, a.array());
            data = ((Object[]) array)[ri];
        }
        int ci = subscript(a.index(), values);
        inBounds(data, ci, a.array());
        return new Object[] {data, ci};
    }

    private int subscript(Linear.Form f, Map<Var, Integer> values) {
        int s = (int) host.evalLong(f.rest());
        for (Map.Entry<Var, Expr> t : f.coefficients().entrySet()) {
            s += (int) host.evalLong(t.getValue()) * values.get(t.getKey());
        }
        return s;
    }

    private static void distinct(Object x, Object written, String xn, String wn) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        java.util.List<Object> parts = new java.util.ArrayList<>(java.util.List.of(x));
        if (x instanceof Object[] rows) {
            parts.addAll(java.util.Arrays.asList(rows));
        }
        parts.forEach(o -> seen.put(o, Boolean.TRUE));
        java.util.List<Object> w = new java.util.ArrayList<>(java.util.List.of(written));
        if (written instanceof Object[] rows) {
            w.addAll(java.util.Arrays.asList(rows));
        }
        for (Object o : w) {
            if (o != null && seen.containsKey(o)) {
                throw new KernelInterpreter.HostInstead("the same array is reachable from both " + xn + " and " + wn
                        + ", and the region writes " + wn);
            }
        }
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
