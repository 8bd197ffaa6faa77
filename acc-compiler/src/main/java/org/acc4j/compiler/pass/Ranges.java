package org.acc4j.compiler.pass;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * Proves that two array accesses of a nest never touch the same element, from the ranges of the loops around them:
 * LU's update {@code a[i][j] -= a[i][k] * a[k][j]} with {@code i, j > k} writes rows and columns the reads never
 * touch. Each access's loop indices range independently over their loops (two different iterations may be
 * compared), so a proof holds across iterations; it needs ascending loops with a unit step and subscripts affine in
 * the indices with constant coefficients. Rows of a two-dimensional array are distinct objects: the runtime checks
 * that before each launch.
 */
final class Ranges {
    private Ranges() {
    }

    /** An affine form: constant coefficients on variables, and a constant. */
    private record Affine(Map<Var, Long> coefficients, long constant) {
        Affine plus(Affine o, long scale) {
            Map<Var, Long> c = new HashMap<>(coefficients);
            o.coefficients.forEach((v, k) -> c.merge(v, k * scale, Long::sum));
            c.values().removeIf(k -> k == 0);
            return new Affine(c, constant + o.constant * scale);
        }
    }

    /** Whether the elements two accesses touch are provably different over the whole nest. */
    static boolean disjoint(Parallelism.Access w, Parallelism.Access a) {
        if (w.row() != null && a.row() != null && w.rowForm() != null && a.rowForm() != null
                && differ(w.rowForm(), w.loops(), a.rowForm(), a.loops())) {
            return true;
        }
        return w.indexForm() != null && a.indexForm() != null
                && (w.row() == null) == (a.row() == null)
                && differ(w.indexForm(), w.loops(), a.indexForm(), a.loops());
    }

    /** Whether two subscripts can never be equal, each with its own iteration of its loops. */
    private static boolean differ(Linear.Form f1, List<Stmt.For> loops1, Linear.Form f2, List<Stmt.For> loops2) {
        Affine s1 = affine(f1);
        Affine s2 = affine(f2);
        if (s1 == null || s2 == null) {
            return false;
        }
        // the second access's indices are other variables with the same ranges
        Map<Var, Stmt.For> loopOf = new HashMap<>();
        for (Stmt.For l : loops1) {
            loopOf.put(l.index(), l);
        }
        Map<Var, Var> copies = new HashMap<>();
        for (Stmt.For l : loops2) {
            Var v = l.index();
            Var copy = new Var(-1000 - v.slot(), v.type(), v.name() + "'");
            copies.put(v, copy);
            loopOf.put(copy, l);
        }
        Affine d = s1.plus(rename(s2, copies), -1);
        Long min = extreme(d, loopOf, copies, true, 0);
        if (min != null && min > 0) {
            return true;
        }
        Long max = extreme(d, loopOf, copies, false, 0);
        return max != null && max < 0;
    }

    private static Affine rename(Affine a, Map<Var, Var> copies) {
        Map<Var, Long> c = new HashMap<>();
        a.coefficients().forEach((v, k) -> c.merge(copies.getOrDefault(v, v), k, Long::sum));
        return new Affine(c, a.constant());
    }

    /**
     * The least (or greatest) value of {@code d} over the loops' ranges, when it is a constant once every index is
     * replaced by its bound (symbols outside the loops must cancel); null otherwise.
     */
    private static Long extreme(Affine d, Map<Var, Stmt.For> loops, Map<Var, Var> copies, boolean least, int depth) {
        if (depth > 8) {
            return null;
        }
        for (Map.Entry<Var, Long> e : d.coefficients().entrySet()) {
            Stmt.For l = loops.get(e.getKey());
            if (l == null) {
                continue;
            }
            if (l.step() != 1 || l.cond() != Cond.LT && l.cond() != Cond.LE) {
                return null;
            }
            boolean lower = least == (e.getValue() > 0);
            Affine bound = affine(lower ? l.lower() : l.bound());
            if (bound == null) {
                return null;
            }
            if (!lower && l.cond() == Cond.LT) {
                bound = bound.plus(new Affine(Map.of(), 1), -1);
            }
            if (copies.containsValue(e.getKey())) {
                // the bounds of a copied index speak of the copies of the outer indices
                bound = rename(bound, copies);
            }
            Map<Var, Long> rest = new HashMap<>(d.coefficients());
            rest.remove(e.getKey());
            Affine next = new Affine(rest, d.constant()).plus(bound, e.getValue());
            return extreme(next, loops, copies, least, depth + 1);
        }
        return d.coefficients().isEmpty() ? d.constant() : null;
    }

    private static Affine affine(Linear.Form f) {
        Affine rest = affine(f.rest());
        if (rest == null) {
            return null;
        }
        Map<Var, Long> c = new HashMap<>(rest.coefficients());
        for (Map.Entry<Var, Expr> e : f.coefficients().entrySet()) {
            if (!(e.getValue() instanceof Expr.Const k)) {
                return null;
            }
            c.merge(e.getKey(), Linear.value(k), Long::sum);
        }
        c.values().removeIf(k -> k == 0);
        return new Affine(c, rest.constant());
    }

    /** An integer expression as an affine form over its variables, or null. */
    static Affine affine(Expr e) {
        if (e == null) {
            return new Affine(Map.of(), 0);
        }
        if (e instanceof Expr.Const k) {
            return k.type().isFloat() ? null : new Affine(Map.of(), Linear.value(k));
        }
        if (e instanceof Expr.Local l) {
            return new Affine(Map.of(l.var(), 1L), 0);
        }
        if (e instanceof Expr.Unary u && u.op() == UnOp.NEG) {
            Affine a = affine(u.operand());
            return a == null ? null : new Affine(Map.of(), 0).plus(a, -1);
        }
        if (e instanceof Expr.Binary b) {
            Affine l = affine(b.left());
            Affine r = affine(b.right());
            if (l == null || r == null) {
                return null;
            }
            if (b.op() == BinOp.ADD) {
                return l.plus(r, 1);
            }
            if (b.op() == BinOp.SUB) {
                return l.plus(r, -1);
            }
            if (b.op() == BinOp.MUL) {
                if (l.coefficients().isEmpty()) {
                    return new Affine(Map.of(), 0).plus(r, l.constant());
                }
                if (r.coefficients().isEmpty()) {
                    return new Affine(Map.of(), 0).plus(l, r.constant());
                }
            }
        }
        return null;
    }
}
