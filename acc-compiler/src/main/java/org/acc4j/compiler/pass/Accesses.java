package org.acc4j.compiler.pass;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Parallelism.Access;

/**
 * The fact-gathering step of {@link Parallelism}: every array access of a nest, with the linear forms of its
 * subscripts in the nest's indices, the loops around it and whether it runs under a condition, into the analysis's
 * {@link Parallelism#accesses} and {@link Parallelism#atomics}; the increments of a coloured region, with their own
 * loads, into {@link Parallelism#coloured}. Locals assigned once (and the frontend's stack temporaries) are
 * substituted into the subscripts that use them.
 */
final class Accesses {
    private final Parallelism analysis;

    Accesses(Parallelism analysis) {
        this.analysis = analysis;
    }

    void collect(List<Stmt> stmts, List<Stmt.For> loops, Map<Var, Expr> defs, Set<Var> once, boolean conditional) {
        Map<Var, Expr> scope = new HashMap<>(defs);
        for (Stmt s : stmts) {
            Linear lin = new Linear(analysis.indices, analysis.variant, scope);
            if (s instanceof Stmt.Assign a) {
                loads(a.value(), lin, loops, s.line(), conditional);
                if ((once.contains(a.var()) || stackTemp(a.var())) && !Exprs.readsMemory(a.value())) {
                    scope.put(a.var(), a.value());
                } else if (stackTemp(a.var())) {
                    scope.remove(a.var());
                }
            } else if (s instanceof Stmt.Store st) {
                if (st.row() != null) {
                    loads(st.row(), lin, loops, s.line(), conditional);
                }
                loads(st.index(), lin, loops, s.line(), conditional);
                int before = analysis.accesses.size();
                loads(st.value(), lin, loops, s.line(), conditional);
                Access w = new Access(st.array(), st.row(), st.index(), st.row() == null ? null : lin.of(st.row()),
                        lin.of(st.index()), true, List.copyOf(loops), s.line(), conditional, increment(st));
                analysis.accesses.add(w);
                if (colouredIncrement(st)) {
                    // the store and its own load: iterations of one colour never reach the same element
                    analysis.coloured.add(w);
                    for (Access a : analysis.accesses.subList(before, analysis.accesses.size() - 1)) {
                        if (!a.store() && a.array().equals(st.array()) && a.index().equals(st.index())) {
                            analysis.coloured.add(a);
                        }
                    }
                }
            } else if (s instanceof Stmt.Atomic at) {
                for (Expr e : Dataflow.atomicOperands(at)) {
                    loads(e, lin, loops, s.line(), conditional);
                }
                analysis.atomics.add(new Access(at.array(), at.row(), at.index(),
                        at.row() == null ? null : lin.of(at.row()), lin.of(at.index()), at.op().writes(),
                        List.copyOf(loops), s.line(), conditional, null));
            } else if (s instanceof Stmt.If i) {
                loads(i.cond(), lin, loops, s.line(), conditional);
                collect(i.then(), loops, scope, once, true);
                collect(i.otherwise(), loops, scope, once, true);
            } else if (s instanceof Stmt.For f) {
                loads(f.lower(), lin, loops, s.line(), conditional);
                loads(f.bound(), lin, loops, s.line(), conditional);
                loops.add(f);
                collect(f.body(), loops, scope, once, conditional);
                loops.remove(loops.size() - 1);
            } else if (s instanceof Stmt.While w) {
                loads(w.cond(), lin, loops, s.line(), conditional);
                collect(w.body(), loops, scope, once, true);
            }
        }
    }

    /**
     * Whether {@code st} is an increment {@code a[x] = a[x] + v} ({@code - v}) of an array the region colours
     * ({@link Region#colour()}): such increments may meet across iterations, which run colour by colour.
     */
    private boolean colouredIncrement(Stmt.Store st) {
        if (analysis.region.colour() == null || !analysis.region.colour().incremented(st.array()) || st.row() != null
                || !(st.value() instanceof Expr.Binary b)) {
            return false;
        }
        Expr.Load self = new Expr.Load(st.array(), st.index());
        return b.op() == org.acc4j.compiler.ir.BinOp.ADD && (b.left().equals(self) || b.right().equals(self))
                || b.op() == org.acc4j.compiler.ir.BinOp.SUB && b.left().equals(self);
    }

    /** {@code v} when {@code st} is {@code a[x] = a[x] + v} (or {@code v + a[x]}) on a 1D array, else null. */
    static Expr increment(Stmt.Store st) {
        if (st.row() != null || !(st.value() instanceof Expr.Binary b) || b.op() != org.acc4j.compiler.ir.BinOp.ADD) {
            return null;
        }
        Expr.Load self = new Expr.Load(st.array(), st.index());
        return b.left().equals(self) ? b.right() : b.right().equals(self) ? b.left() : null;
    }

    /**
     * A temporary the frontend made for a value javac kept on the operand stack across a branch (the array index of
     * {@code a[i] = c ? x : y}): set right before its one use, so its latest definition stands for it there even when
     * the loop sets it more than once.
     */
    static boolean stackTemp(Var v) {
        return v.name().matches("stack\\d+");
    }

    void loads(Expr e, Linear lin, List<Stmt.For> loops, int line, boolean conditional) {
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Load l) {
                analysis.accesses.add(new Access(l.array(), l.row(), l.index(),
                        l.row() == null ? null : lin.of(l.row()), lin.of(l.index()), false, List.copyOf(loops), line,
                        conditional, null));
            }
        });
    }
}
