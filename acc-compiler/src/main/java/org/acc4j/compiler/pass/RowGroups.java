package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Finds sparse matrix-vector products in compressed row storage, whose rows are short and uneven, and runs each row
 * with a group of lanes ({@link RowGroup}) instead of one thread: the loop collapsing for irregular loops of Seyong
 * Lee, Seung-Jai Min and Rudolf Eigenmann, <i>OpenMP to GPGPU: A Compiler Framework for Automatic Translation and
 * Optimization</i>, done here as a warp (or part of one) per row, with the group's size chosen at launch.
 *
 * <p>The shape, exactly: a parallel loop {@code for (r = a; r < b; r++)} whose body is scalar assignments (one of them
 * {@code s = s0}), then {@code for (k = offsets[r]; k < offsets[r + 1]; k++)} (the bounds may be locals the
 * assignments set from those loads) whose body is assignments ending in {@code s += e} or {@code s -= e}, with
 * temporaries the iteration sets before it reads them, then statements without loops that may read {@code s} but not
 * {@code k} or the temporaries. Nothing inside the inner loop stores to memory.
 *
 * <p>The lanes add in another order than Java. Integer sums are exact in any order, so those rows take lane groups
 * without a word from the user; a {@code float} or {@code double} sum keeps Java's order (one thread per row) unless
 * the inner loop has {@code @Loop(vector = Loop.AUTO)} (or a power of two up to 32), the same permission a reduction
 * gives to reorder a sum.
 *
 * <p>A dense row ({@code for (j = lo; j < hi; j++) s += e} with bounds that are other expressions of the row, {@code
 * j < n}) takes a group of lanes only when the user mapped its inner loop to vector ({@code @Loop(vector = ...)}):
 * OpenACC's gang loop around a vector reduction loop, a vector reduction per row, with the lanes the clause asks for
 * (a power of two, at most a warp). Without the clause it stays one thread per row, in Java's order.
 * Runs before {@link Parallelism} ({@link #prepare}, which takes the inner loop's
 * {@code vector} clause off, so the row loop is the nest's one parallel level) and after it ({@link #find}).
 */
public final class RowGroups {
    private RowGroups() {
    }

    /** The regions to decide, and per region ordinal the inner loop's clause taken off in {@link #prepare}. */
    public record Prepared(List<Region> regions, Map<Integer, LoopSpec> asked) {
    }

    /** The regions whose loop has the shape with a {@code vector} clause on its inner loop, with the clause taken off. */
    public static Prepared prepare(List<Region> regions) {
        List<Region> out = new ArrayList<>();
        Map<Integer, LoopSpec> asked = new HashMap<>();
        for (Region r : regions) {
            Shape sh = shape(r.loop());
            LoopSpec spec = sh == null ? null : sh.inner().spec();
            if (spec == null || spec.vector() == LoopSpec.OFF || spec.gang() != LoopSpec.OFF
                    || spec.worker() != LoopSpec.OFF || spec.seq() || spec.collapse() != 1) {
                out.add(r);
                continue;
            }
            int v = spec.vector();
            if (sh.offsets() == null) {
                // a dense row: the vector clause asks for a vector reduction per row; any vector length is taken
                if (v != LoopSpec.AUTO && v < 1) {
                    out.add(r);
                    continue;
                }
            } else if (v != LoopSpec.AUTO && (v > RowGroup.MAX_LANES || Integer.bitCount(v) != 1)) {
                throw new Unsupported(sh.inner().line(), "vector = " + v + " on the loop over a row's elements (lanes per "
                        + "row are a power of two up to " + RowGroup.MAX_LANES + ")");
            }
            Stmt.For inner = sh.inner();
            LoopSpec plain = new LoopSpec(LoopSpec.OFF, LoopSpec.OFF, LoopSpec.OFF, false, spec.independent(), 1,
                    spec.reduction(), spec.annotated(), spec.increments());
            Stmt.For stripped = new Stmt.For(inner.index(), inner.lower(), inner.cond(), inner.bound(), inner.step(),
                    plain, inner.body(), inner.line(), inner.stride());
            List<Stmt> body = new ArrayList<>(r.loop().body());
            body.set(body.indexOf(inner), stripped);
            out.add(r.withLoop(r.loop().withBody(body)));
            asked.put(r.ordinal(), spec);
        }
        return new Prepared(out, asked);
    }

    /**
     * The row group of a region {@link Parallelism} has decided, or null. {@code asked} is the inner loop's clause
     * {@link #prepare} took off (null without one). {@code notes} gets one line saying what was chosen, or why a
     * sum stays in one thread per row.
     */
    public static RowGroup find(Region region, LoopSpec asked, List<String> notes) {
        Shape sh = shape(region.loop());
        if (sh == null) {
            return null;
        }
        String where = "line " + sh.inner().line() + ": loop over " + sh.inner().index().name() + ": ";
        Mapping m = region.mapping();
        Mapping.Level level = m == null ? null : m.levelOf(region.loop());
        if (level == null || m.levels().size() != 1 || level.loops().size() != 1 || level.gridAxis() != 0
                || level.blockAxis() != 0 || m.block()[0] % 32 != 0 || m.block()[1] != 1 || m.block()[2] != 1
                || !region.reductions().isEmpty()) {
            if (asked != null) {
                notes.add(where + "one thread per row: lanes share a row only when the row loop is the nest's one "
                        + "parallel level, on x with whole warps per block, and the nest has no reduction");
            }
            return null;
        }
        boolean exact = !sh.sum().type().isFloat();
        if (sh.offsets() == null) {
            return asked == null ? null : dense(region, sh, asked.vector(), exact, where, notes);
        }
        if (!exact && asked == null) {
            notes.add(where + "one thread per row, adding " + sh.sum().name() + " in Java's order; @Loop(vector = "
                    + "Loop.AUTO) on this loop lets a group of lanes share each row (the " + sh.sum().type().javaName()
                    + " sum then comes out in another order)");
            return null;
        }
        int lanes = asked == null ? RowGroup.AUTO : asked.vector();
        RowGroup g = new RowGroup(region.loop(), sh.inner(), sh.sum(), sh.offsets(), lanes, !exact);
        notes.add(where + (lanes == RowGroup.AUTO ? "a group of lanes per row, sized at each launch from the mean row "
                + "length of " + sh.offsets().name() + " (checked monotonic first, else one thread per row)"
                : lanes + " lanes per row") + "; the group adds " + sh.sum().name() + " with warp shuffles"
                + (exact ? " (an integer sum: exact in any order)" : " (in another order than Java's, as the vector "
                + "clause allows)"));
        return g;
    }

    /**
     * A dense row ({@code for (j = lo; j < hi; j++) s += e}, bounds that are no row offsets) whose inner loop the user
     * mapped to vector: a vector reduction per row, as OpenACC's {@code gang} loop around a {@code vector reduction}
     * loop runs it, done by a group of lanes per row (a warp, or the power of two the clause asks for below one) that
     * add their shares with warp shuffles. A vector length above a warp runs as a warp per row, and says so.
     */
    private static RowGroup dense(Region region, Shape sh, int vector, boolean exact, String where, List<String> notes) {
        int lanes = RowGroup.MAX_LANES;
        String asked = "";
        if (vector != LoopSpec.AUTO && vector < RowGroup.MAX_LANES) {
            lanes = Integer.highestOneBit(vector);
            asked = lanes == vector ? "" : " (vector = " + vector + " asked: the power of two below it)";
        } else if (vector != LoopSpec.AUTO && vector > RowGroup.MAX_LANES) {
            asked = " (vector = " + vector + " asked: a row's group of lanes is at most a warp)";
        }
        RowGroup g = new RowGroup(region.loop(), sh.inner(), sh.sum(), null, lanes, !exact);
        notes.add(where + "a vector reduction per row: " + lanes + " lanes per row" + asked + " add "
                + sh.sum().name() + " with warp shuffles" + (exact ? " (an integer sum: exact in any order)"
                : " (in another order than Java's, as the vector clause allows)"));
        return g;
    }

    /** The parts of the shape; {@code offsets} is null for a dense row (bounds that are no row offsets). */
    private record Shape(Stmt.For inner, Var sum, ArrayRef offsets) {
    }

    private static Shape shape(Stmt.For rows) {
        if (rows.stride() != null || rows.step() != 1 || rows.cond() != Cond.LT || rows.index().type() != Type.I32) {
            return null;
        }
        List<Stmt> body = rows.body();
        int at = -1;
        for (int i = 0; i < body.size(); i++) {
            if (body.get(i) instanceof Stmt.For) {
                if (at >= 0) {
                    return null;
                }
                at = i;
            }
        }
        if (at < 0) {
            return null;
        }
        Stmt.For inner = (Stmt.For) body.get(at);
        List<Stmt> pre = body.subList(0, at);
        List<Stmt> post = body.subList(at + 1, body.size());
        for (Stmt s : pre) {
            if (!(s instanceof Stmt.Assign)) {
                return null;
            }
        }
        if (!plain(post) || inner.stride() != null || inner.step() != 1 || inner.cond() != Cond.LT
                || inner.index().type() != Type.I32 || inner.spec().seq()) {
            return null;
        }
        ArrayRef offsets = offsets(resolve(inner.lower(), pre), resolve(inner.bound(), pre), rows.index());
        // the inner body: assignments, the last accumulating into s
        Var sum = null;
        for (Stmt s : inner.body()) {
            if (!(s instanceof Stmt.Assign)) {
                return null;
            }
        }
        Stmt.Assign last = (Stmt.Assign) (inner.body().isEmpty() ? null : inner.body().get(inner.body().size() - 1));
        if (last == null || !(last.value() instanceof Expr.Binary b) || !accumulates(b, last.var())) {
            return null;
        }
        sum = last.var();
        if (sum.type() == Type.PRED) {
            return null;
        }
        Set<Var> assigned = new LinkedHashSet<>();
        Dataflow.assigned(inner.body(), assigned);
        Set<Var> live = new LinkedHashSet<>();
        Dataflow.liveIn(inner.body(), live);
        live.retainAll(assigned);
        if (!live.equals(Set.of(sum)) || reads(inner.body().subList(0, inner.body().size() - 1), sum)
                || assignedBefore(inner.body(), sum) || assigned.contains(inner.index())) {
            return null;
        }
        // the bounds are evaluated once per row: nothing they read may change in the inner loop
        for (Expr bound : List.of(inner.lower(), inner.bound())) {
            for (Var v : locals(bound)) {
                if (assigned.contains(v)) {
                    return null;
                }
            }
        }
        // s restarts in every row; k and the temporaries are not read after the loop; nothing else changes them
        boolean restarts = false;
        for (Stmt s : pre) {
            restarts |= ((Stmt.Assign) s).var().equals(sum);
        }
        Set<Var> after = new LinkedHashSet<>();
        Dataflow.liveIn(post, after);
        Set<Var> privates = new LinkedHashSet<>(assigned);
        privates.add(inner.index());
        privates.remove(sum);
        for (Var v : privates) {
            if (after.contains(v)) {
                return null;
            }
        }
        Map<ArrayRef, boolean[]> uses = Dataflow.arrayUses(List.of(rows));
        if (!restarts || offsets != null && uses.get(offsets)[1]) {
            return null;
        }
        for (boolean[] u : Dataflow.arrayUses(inner.body()).values()) {
            if (u[1]) {
                return null;
            }
        }
        return new Shape(inner, sum, offsets);
    }

    /** {@code s = s + e}, {@code s = e + s} or {@code s = s - e} with {@code e} free of {@code s}. */
    private static boolean accumulates(Expr.Binary b, Var s) {
        Expr l = b.left();
        Expr r = b.right();
        if (b.op() == BinOp.ADD && r instanceof Expr.Local lr && lr.var().equals(s)) {
            return !readsExpr(l, s);
        }
        return (b.op() == BinOp.ADD || b.op() == BinOp.SUB) && l instanceof Expr.Local ll && ll.var().equals(s)
                && !readsExpr(r, s);
    }

    /** The definition a bound stands for: a local the row's assignments set once from a load, or itself. */
    private static Expr resolve(Expr e, List<Stmt> pre) {
        if (!(e instanceof Expr.Local l)) {
            return e;
        }
        Expr def = null;
        for (Stmt s : pre) {
            if (s instanceof Stmt.Assign a && a.var().equals(l.var())) {
                if (def != null) {
                    return e;
                }
                def = a.value();
            }
        }
        return def == null ? e : def;
    }

    /** The array of {@code lower = a[r]} and {@code bound = a[r + 1]}, an {@code int[]}, or null. */
    private static ArrayRef offsets(Expr lower, Expr bound, Var r) {
        if (!(lower instanceof Expr.Load lo) || !(bound instanceof Expr.Load hi) || lo.row() != null || hi.row() != null
                || !lo.array().equals(hi.array()) || lo.array().dims() != 1 || lo.array().elem() != Elem.INT) {
            return null;
        }
        if (!(lo.index() instanceof Expr.Local li) || !li.var().equals(r)) {
            return null;
        }
        if (!(hi.index() instanceof Expr.Binary b) || b.op() != BinOp.ADD) {
            return null;
        }
        boolean plusOne = (b.left().equals(lo.index()) && isOne(b.right()))
                || (b.right().equals(lo.index()) && isOne(b.left()));
        return plusOne ? lo.array() : null;
    }

    private static boolean isOne(Expr e) {
        return e instanceof Expr.Const k && k.type() == Type.I32 && k.bits() == 1;
    }

    /** Statements without loops, atomics, breaks or returns. */
    private static boolean plain(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.If i) {
                if (!plain(i.then()) || !plain(i.otherwise())) {
                    return false;
                }
            } else if (!(s instanceof Stmt.Assign) && !(s instanceof Stmt.Store)) {
                return false;
            }
        }
        return true;
    }

    private static boolean reads(List<Stmt> stmts, Var v) {
        for (Expr e : Dataflow.expressions(stmts)) {
            if (readsExpr(e, v)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code v} is assigned anywhere but in the last statement. */
    private static boolean assignedBefore(List<Stmt> stmts, Var v) {
        Set<Var> a = new LinkedHashSet<>();
        Dataflow.assigned(stmts.subList(0, stmts.size() - 1), a);
        return a.contains(v);
    }

    private static Set<Var> locals(Expr e) {
        Set<Var> out = new LinkedHashSet<>();
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Local l) {
                out.add(l.var());
            }
        });
        return out;
    }

    private static boolean readsExpr(Expr e, Var v) {
        boolean[] found = {false};
        Dataflow.forEach(e, x -> found[0] |= x instanceof Expr.Local l && l.var().equals(v));
        return found[0];
    }
}
