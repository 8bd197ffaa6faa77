package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Decides whether a region's outer loop runs in parallel, and says why.
 *
 * <p>A loop the user mapped ({@code gang}, {@code worker} or {@code vector}) or marked {@code independent} is
 * parallel on the user's word. An unmarked loop must pass the dependence test: no scalar is carried from one
 * iteration to the next, and every written array is accessed at one subscript, affine in the index with a
 * non-zero coefficient and otherwise invariant, so each iteration owns its elements. Inner loops run
 * sequentially in each thread. Nested parallel loops and {@code collapse} are not supported yet.
 */
public final class Parallelism {
    private Parallelism() {
    }

    public static Region decide(Region r) {
        Stmt.For loop = r.loop();
        LoopSpec spec = loop.spec();
        int line = loop.line();
        checkInner(loop.body());
        if (spec.collapse() > 1) {
            throw new Unsupported(line, "collapse(" + spec.collapse() + ") (loop nests come with the loop-nest compiler)");
        }
        if (spec.seq()) {
            throw new Unsupported(line, "an outer loop marked seq (a sequential loop around kernels is not supported yet)");
        }
        Set<Var> variant = new HashSet<>();
        Dataflow.assigned(loop.body(), variant);
        variant.add(loop.index());
        if (Exprs.any(loop.bound(), x -> x instanceof Expr.Load
                || (x instanceof Expr.Local l && variant.contains(l.var())))) {
            throw new Unsupported(line, "a parallel loop whose bound " + loop.bound() + " may change while it runs");
        }
        String why;
        if (spec.hasParallelLevel()) {
            why = "parallel: mapped by the user " + spec;
        } else if (spec.independent()) {
            why = "parallel: marked independent";
        } else {
            String dependence = dependence(loop, variant);
            if (dependence != null) {
                throw new Unsupported(line, "a loop that is not parallelizable: " + dependence
                        + "; if its iterations are independent, mark the index @Loop(independent = true)");
            }
            why = "parallelizable: no loop-carried dependence";
        }
        return new Region(r.ordinal(), r.prologue(), loop, why);
    }

    private static void checkInner(List<Stmt> body) {
        for (Stmt s : body) {
            if (s instanceof Stmt.For f) {
                if (f.spec().hasParallelLevel() || f.spec().independent() || f.spec().collapse() > 1) {
                    throw new Unsupported(f.line(), "a nested parallel loop " + f.spec()
                            + " (loop nests come with the loop-nest compiler)");
                }
                checkInner(f.body());
            } else if (s instanceof Stmt.If i) {
                checkInner(i.then());
                checkInner(i.otherwise());
            }
        }
    }

    /** Null when no dependence is carried by {@code loop}, else the reason. */
    static String dependence(Stmt.For loop, Set<Var> variant) {
        Set<Var> carried = new HashSet<>();
        Dataflow.liveIn(loop.body(), carried);
        carried.retainAll(variant);
        carried.remove(loop.index());
        if (!carried.isEmpty()) {
            return "the scalar " + carried.iterator().next().name() + " is carried from one iteration to the next";
        }
        Map<ArrayRef, List<Expr>> subscripts = new LinkedHashMap<>();
        Set<ArrayRef> written = new HashSet<>();
        accesses(loop.body(), subscripts, written);
        Var i = loop.index();
        for (ArrayRef a : written) {
            List<Expr> subs = subscripts.get(a);
            Expr first = subs.get(0);
            for (Expr s : subs) {
                if (!s.equals(first)) {
                    return a.name() + " is written and also accessed at another subscript (" + first + " and " + s + ")";
                }
            }
            Long c = Affine.coefficient(first, i);
            if (c == null || c == 0 || !Affine.restInvariant(first, i, variant)) {
                return "the subscript " + first + " of " + a.name() + " is not of the form c*" + i.name()
                        + " + invariant";
            }
        }
        return null;
    }

    private static void accesses(List<Stmt> stmts, Map<ArrayRef, List<Expr>> subs, Set<ArrayRef> written) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                subs.computeIfAbsent(st.array(), k -> new ArrayList<>()).add(st.index());
                written.add(st.array());
            }
        }
        for (Expr e : Dataflow.expressions(stmts)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Load l) {
                    subs.computeIfAbsent(l.array(), k -> new ArrayList<>()).add(l.index());
                }
            });
        }
        collectNestedStores(stmts, subs, written);
    }

    private static void collectNestedStores(List<Stmt> stmts, Map<ArrayRef, List<Expr>> subs, Set<ArrayRef> written) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.If i) {
                storesIn(i.then(), subs, written);
                storesIn(i.otherwise(), subs, written);
            } else if (s instanceof Stmt.For f) {
                storesIn(f.body(), subs, written);
            }
        }
    }

    private static void storesIn(List<Stmt> stmts, Map<ArrayRef, List<Expr>> subs, Set<ArrayRef> written) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                subs.computeIfAbsent(st.array(), k -> new ArrayList<>()).add(st.index());
                written.add(st.array());
            }
        }
        collectNestedStores(stmts, subs, written);
    }
}
