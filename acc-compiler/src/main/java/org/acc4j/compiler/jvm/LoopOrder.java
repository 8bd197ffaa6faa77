package org.acc4j.compiler.jvm;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * The loop order of a nest on the host's cores: a rectangular nest of parallel loops whose vector loop (the one the
 * mapping puts on the block's x axis: the stride-1 loop the compiler chose for coalescing, or the user's
 * {@code vector} loop) is not innermost runs with that loop innermost, the others in their order, so that the
 * innermost loop walks consecutive elements as it does across a GPU warp. The 7-point stencil over
 * {@code a[(k*ny + j)*nx + i]} with loops {@code i | j | k} runs {@code j | k | i}: rows of consecutive elements
 * rather than one element of each of {@code nx} rows.
 *
 * <p>Reordering keeps every result: the loops are parallel (no iteration reads what another writes), so any order of
 * the iterations writes the same values. It applies only where the order cannot be observed otherwise: no reduction
 * (whose chunk partials depend on the order), no atomic operation, no inner sequential or {@code while} loop, every
 * level one {@code int} loop stepping by one up to a strict bound that no loop of the nest changes, each level's body
 * exactly the next level's loop, and (checked by the emitter) a variant with nothing that may throw, so that no
 * exception order is at stake.
 */
final class LoopOrder {
    private LoopOrder() {
    }

    /** The levels of {@code r} in the order the host runs them, or null when it keeps the source order. */
    static List<Mapping.Level> of(Region r) {
        Mapping m = r.mapping();
        if (m == null || !r.reductions().isEmpty()) {
            return null;
        }
        List<Mapping.Level> levels = m.levels();
        if (levels.size() < 2 || levels.get(0).outer() != r.loop()) {
            return null;
        }
        Set<Var> assigned = new HashSet<>();
        assigned(List.of(r.loop()), assigned);
        int last = levels.size() - 1;
        int vector = -1;
        for (int q = 0; q <= last; q++) {
            Mapping.Level level = levels.get(q);
            if (level.loops().size() != 1) {
                return null;
            }
            Stmt.For f = level.outer();
            if (!rectangular(f, assigned)) {
                return null;
            }
            if (q < last) {
                if (f.body().size() != 1 || f.body().get(0) != levels.get(q + 1).outer()) {
                    return null;
                }
            } else if (!straight(f.body())) {
                return null;
            }
            if (level.blockAxis() == 0) {
                vector = q;
            }
        }
        if (vector < 0 || vector == last) {
            return null;
        }
        List<Mapping.Level> out = new ArrayList<>(levels);
        out.add(out.remove(vector));
        return List.copyOf(out);
    }

    /** {@code i | j | k}: the loops' indices in {@code order}. */
    static String describe(List<Mapping.Level> order) {
        return order.stream().map(l -> l.outer().index().name()).collect(Collectors.joining(" | "));
    }

    /** An {@code int} loop by one up to a strict bound, its bounds reading no array and nothing the nest assigns. */
    private static boolean rectangular(Stmt.For f, Set<Var> assigned) {
        if (f.stride() != null || f.cond() != Cond.LT || f.step() != 1 || !JvmEmitter.unitStep(f)) {
            return false;
        }
        Set<Var> used = new LinkedHashSet<>();
        RegionUses.collectVars(f.lower(), used);
        RegionUses.collectVars(f.bound(), used);
        for (Var v : used) {
            if (assigned.contains(v)) {
                return false;
            }
        }
        Set<ArrayRef> arrays = new LinkedHashSet<>();
        RegionUses.collect(f.lower(), arrays, new LinkedHashMap<ArrayRef.Field, Expr.FieldValue>());
        RegionUses.collect(f.bound(), arrays, new LinkedHashMap<ArrayRef.Field, Expr.FieldValue>());
        return arrays.isEmpty();
    }

    /** Statements with no loop, atomic operation or break inside. */
    private static boolean straight(List<Stmt> body) {
        for (Stmt s : body) {
            if (s instanceof Stmt.If i) {
                if (!straight(i.then()) || !straight(i.otherwise())) {
                    return false;
                }
            } else if (!(s instanceof Stmt.Assign || s instanceof Stmt.Store)) {
                return false;
            }
        }
        return true;
    }

    private static void assigned(List<Stmt> stmts, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                out.add(a.var());
            } else if (s instanceof Stmt.Atomic at && at.result() != null) {
                out.add(at.result());
            } else if (s instanceof Stmt.If i) {
                assigned(i.then(), out);
                assigned(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                assigned(w.body(), out);
            } else if (s instanceof Stmt.For f) {
                out.add(f.index());
                if (f.stride() != null) {
                    out.add(f.stride().var());
                }
                assigned(f.body(), out);
            }
        }
    }
}
