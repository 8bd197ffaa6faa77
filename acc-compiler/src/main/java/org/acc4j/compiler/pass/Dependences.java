package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Proven dependences between the iterations of one loop, for {@link Parallelism}'s diagnostics and warnings.
 *
 * <p>Two accesses to one array at linear subscripts with the same coefficients, differing by a whole number of the
 * loop's steps ({@code a[i]} and {@code a[i - 1]}, {@code a[i*n + j]} and {@code a[(i - 1)*n + j]}, {@code a[i][j]}
 * and {@code a[i + 1][j]}), touch one element from two iterations a constant distance apart: a dependence that is
 * proven, not merely unproven, so no {@code @Loop(independent = true)} can make the loop parallel. Only accesses that
 * run in every iteration (outside any {@code if} or inner {@code while}) count as proof.
 */
final class Dependences {
    /** How far apart (in index units, at most this many) two accesses are searched for a symbolic distance. */
    private static final int SEARCH = 8;

    private Dependences() {
    }

    /**
     * The offset {@code d} such that iteration {@code i} of {@code f} makes {@code other} touch the element that
     * {@code write} touches in iteration {@code i + d} (0 excluded), or null when there is none or it is not known.
     */
    static Long offset(Parallelism.Access write, Parallelism.Access other, Stmt.For f) {
        if (write.indexForm() == null || other.indexForm() == null || (write.row() == null) != (other.row() == null)
                || (write.row() != null && (write.rowForm() == null || other.rowForm() == null))) {
            return null;
        }
        Long col = offset(write.indexForm(), other.indexForm(), f.index());
        Long row = write.row() == null ? Long.valueOf(0) : offset(write.rowForm(), other.rowForm(), f.index());
        if (col == null || row == null) {
            return null;
        }
        boolean inCol = write.indexForm().coefficient(f.index()) != null;
        boolean inRow = write.row() != null && write.rowForm().coefficient(f.index()) != null;
        long d = inCol ? col : row;
        if ((inCol && inRow && col.longValue() != row.longValue()) || d == 0 || d % f.step() != 0) {
            return null;
        }
        return d;
    }

    /**
     * For one subscript: 0 when {@code v} does not appear and the forms are equal, {@code d} when {@code other} equals
     * {@code write} with {@code v + d} for {@code v}, else null.
     */
    private static Long offset(Linear.Form write, Linear.Form other, Var v) {
        if (!write.coefficients().equals(other.coefficients())) {
            return null;
        }
        Expr c = write.coefficient(v);
        if (c == null) {
            return write.rest().equals(other.rest()) ? Long.valueOf(0) : null;
        }
        if (c instanceof Expr.Const kc && write.rest() instanceof Expr.Const kw && other.rest() instanceof Expr.Const ko) {
            long diff = Linear.value(ko) - Linear.value(kw);
            long coef = Linear.value(kc);
            return coef != 0 && diff % coef == 0 ? diff / coef : null;
        }
        for (int d = -SEARCH; d <= SEARCH; d++) {
            Expr k = c.type() == Type.I64 ? Expr.Const.i64(d) : Expr.Const.i32(d);
            if (Linear.add(write.rest(), Linear.mul(k, c)).equals(other.rest())) {
                return (long) d;
            }
        }
        return null;
    }

    /**
     * The dependence in words: "a is written at a[i] and read at a[i - 1]: iteration i reads what iteration i-1 wrote
     * (distance 1)".
     */
    static String describe(Parallelism.Access write, Parallelism.Access other, Stmt.For f, long d) {
        String i = f.index().name();
        String j = i + (d < 0 ? "-" : "+") + Math.abs(d);
        long distance = Math.abs(d / f.step());
        // the iteration at index i + d runs before iteration i when the loop walks towards smaller offsets
        boolean earlier = (d < 0) == (f.step() > 0);
        String what = other.store()
                ? " and at " + subscript(other) + ": iterations " + i + " and " + j + " write the same element"
                : " and read at " + subscript(other) + ": iteration " + i + " reads what iteration " + j
                        + (earlier ? " wrote" : " overwrites later");
        return write.array().name() + " is written at " + subscript(write) + what + " (distance " + distance + ")";
    }

    /** {@code a[i - 1]} or {@code a[i][j + 1]}. */
    static String subscript(Parallelism.Access a) {
        return a.array().name() + (a.row() != null ? "[" + bare(a.row()) + "]" : "") + "[" + bare(a.index()) + "]";
    }

    private static String bare(Expr e) {
        String s = e.toString();
        return s.startsWith("(") && s.endsWith(")") && e instanceof Expr.Binary ? s.substring(1, s.length() - 1) : s;
    }

    /**
     * The locals {@code nest} assigns from array elements, directly or through other such locals, each with its
     * definition (null when it has several).
     */
    static Map<Var, Expr> fromMemory(List<Stmt> nest) {
        Map<Var, List<Expr>> defs = new LinkedHashMap<>();
        definitions(nest, defs);
        Map<Var, Expr> out = new LinkedHashMap<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Map.Entry<Var, List<Expr>> d : defs.entrySet()) {
                if (!out.containsKey(d.getKey()) && d.getValue().stream().anyMatch(e -> Exprs.readsMemory(e)
                        || Exprs.any(e, x -> x instanceof Expr.Local l && out.containsKey(l.var())))) {
                    out.put(d.getKey(), d.getValue().size() == 1 ? d.getValue().get(0) : null);
                    changed = true;
                }
            }
        }
        return out;
    }

    private static void definitions(List<Stmt> stmts, Map<Var, List<Expr>> defs) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                defs.computeIfAbsent(a.var(), k -> new ArrayList<>()).add(a.value());
            } else if (s instanceof Stmt.Atomic at && at.result() != null) {
                defs.computeIfAbsent(at.result(), k -> new ArrayList<>()).add(new Expr.Load(at.array(), at.row(), at.index()));
            } else if (s instanceof Stmt.If i) {
                definitions(i.then(), defs);
                definitions(i.otherwise(), defs);
            } else if (s instanceof Stmt.For f) {
                definitions(f.body(), defs);
            } else if (s instanceof Stmt.While w) {
                definitions(w.body(), defs);
            }
        }
    }

    /** Whether {@code w}'s subscript is read from memory (an indirect write, as a histogram's {@code bins[data[i]]++}). */
    static boolean indirect(Parallelism.Access w, Map<Var, Expr> fromMemory) {
        return Exprs.any(w.index(), x -> x instanceof Expr.Load || x instanceof Expr.Local l && fromMemory.containsKey(l.var()))
                || (w.row() != null && Exprs.any(w.row(),
                        x -> x instanceof Expr.Load || x instanceof Expr.Local l && fromMemory.containsKey(l.var())));
    }

    /**
     * An indirect write in words: a race unless the indices are distinct. An increment ({@code step} not null, as in
     * a histogram's {@code bins[data[i]]++}) gets the atomic form that makes it parallel.
     */
    static String race(Parallelism.Access w, Map<Var, Expr> fromMemory, Expr step) {
        Expr index = inline(w.index(), fromMemory, 0);
        String where = w.array().name() + (w.row() != null ? "[" + bare(inline(w.row(), fromMemory, 0)) + "]" : "")
                + "[" + bare(index) + "]";
        return w.array().name() + " is written at " + where + " (line " + w.line() + "), an index read from memory: "
                + "iterations that write the same element would race, unless the indices are all distinct"
                + (step != null && w.row() == null ? "; to add to it from every iteration, write Acc.atomicAdd("
                + w.array().name() + ", " + bare(index) + ", " + bare(inline(step, fromMemory, 0)) + ") or mark the loop's "
                + "index @Loop(increments = Loop.Increments.ATOMIC)" : "");
    }

    /** {@code e} with the compiler's temporaries replaced by their single definitions, for messages. */
    private static Expr inline(Expr e, Map<Var, Expr> defs, int depth) {
        if (e instanceof Expr.Local l && defs.get(l.var()) != null && l.var().name().startsWith("tmp") && depth < 8) {
            return inline(defs.get(l.var()), defs, depth + 1);
        }
        return e;
    }

    /**
     * Warnings for loops parallel on the user's word whose writes provably collide: every iteration writes the same
     * element, or two iterations a constant distance apart touch one element, one of them writing. The kernel is kept,
     * as OpenACC does; the report says what races.
     */
    static List<String> collisions(List<List<Stmt.For>> chain, List<Parallelism.Access> accesses) {
        List<String> out = new ArrayList<>();
        for (List<Stmt.For> group : chain) {
            for (Stmt.For f : group) {
                Set<Object> done = new HashSet<>();
                for (Parallelism.Access w : accesses) {
                    if (!w.store() || w.conditional() || !w.loops().contains(f) || done.contains(w.array())) {
                        continue;
                    }
                    String why = null;
                    boolean linear = w.indexForm() != null && (w.row() == null || w.rowForm() != null);
                    if (linear && w.indexForm().coefficient(f.index()) == null
                            && (w.rowForm() == null || w.rowForm().coefficient(f.index()) == null)) {
                        why = "at line " + w.line() + " every iteration writes " + subscript(w);
                    }
                    for (Parallelism.Access a : accesses) {
                        if (why != null) {
                            break;
                        }
                        if (a == w || !a.array().equals(w.array()) || a.conditional() || !a.loops().contains(f)) {
                            continue;
                        }
                        Long d = offset(w, a, f);
                        if (d != null) {
                            why = "at line " + a.line() + " " + describe(w, a, f, d);
                        }
                    }
                    if (why != null) {
                        done.add(w.array());
                        out.add(org.acc4j.compiler.ir.Region.WARNING + "line " + f.line() + ": the loop over " + f.index().name() + " is parallel on "
                                + "the user's word " + f.spec() + ", but " + why + "; its iterations run at once, so "
                                + "the result depends on their timing");
                    }
                }
            }
        }
        return out;
    }
}
