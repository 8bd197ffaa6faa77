package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Finds the array accesses of a region whose bounds checks can be hoisted to the host: both subscripts linear in
 * the indices of the loops around the access (locals assigned once from such forms substituted, as
 * {@link Linear} does), every one of those loops with bounds invariant in the nest. Accesses in the region's
 * prologue, and those with other subscripts ({@code a[idx[i]]}, {@code a[i*i]}, a triangular inner loop), keep
 * their check in the kernel.
 */
public final class Bounds {
    private final Set<Var> indices = new HashSet<>();
    private final Set<Var> variant = new HashSet<>();
    private final List<RangeCheck> out = new ArrayList<>();
    /** Per two-dimensional array stored to: the row subscripts of its stores, or null when one is not linear. */
    private final Map<org.acc4j.compiler.ir.ArrayRef, List<RangeCheck.Bound>> storedRows = new java.util.LinkedHashMap<>();

    private Bounds() {
    }

    /**
     * The rows a region's kernel may write of each two-dimensional array it stores to: the row subscripts of its
     * stores and atomic updates, each linear in the loops around it, whose least and greatest values at a launch
     * bound the rows written ({@link RangeCheck#range}); null for an array with a store whose row subscript is not
     * such a form (or in the region's prologue).
     */
    public static Map<org.acc4j.compiler.ir.ArrayRef, List<RangeCheck.Bound>> writtenRows(Region region) {
        Bounds b = new Bounds();
        List<Stmt> nest = List.of(region.loop());
        Dataflow.assigned(nest, b.variant);
        Dataflow.loopIndices(nest, b.indices);
        b.walk(nest, new ArrayList<>(), new HashMap<>(), Dataflow.assignedOnce(nest), true);
        b.unknownRows(region.devicePrologue());
        return java.util.Collections.unmodifiableMap(b.storedRows);
    }

    /** Marks every two-dimensional array stored to in {@code stmts} as written at rows not known. */
    private void unknownRows(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && st.row() != null) {
                storedRows.put(st.array(), null);
            } else if (s instanceof Stmt.Atomic at && at.row() != null) {
                storedRows.put(at.array(), null);
            } else if (s instanceof Stmt.If i) {
                unknownRows(i.then());
                unknownRows(i.otherwise());
            } else if (s instanceof Stmt.For f) {
                unknownRows(f.body());
            } else if (s instanceof Stmt.While w) {
                unknownRows(w.body());
            }
        }
    }

    /** Records the row subscript of a store or atomic update of a two-dimensional array (null: not linear). */
    private void storedRow(org.acc4j.compiler.ir.ArrayRef array, Expr row, Linear lin, List<Stmt.For> loops) {
        if (row == null || storedRows.containsKey(array) && storedRows.get(array) == null) {
            return;
        }
        // only the loops whose indices the row subscript uses need bounds invariant in the nest
        RangeCheck.Bound r = bound(lin.of(row), loops);
        if (r != null && !r.terms().stream().allMatch(t -> invariant(t.loop().lower()) && invariant(t.loop().bound())
                && invariant(t.coefficient()))) {
            r = null;
        }
        if (r == null) {
            storedRows.put(array, null);
        } else {
            storedRows.computeIfAbsent(array, k -> new ArrayList<>()).add(r);
        }
    }

    /** The hoistable checks of {@code region}'s loop nest, in program order. */
    public static List<RangeCheck> hoistable(Region region) {
        Bounds b = new Bounds();
        List<Stmt> nest = List.of(region.loop());
        Dataflow.assigned(nest, b.variant);
        Dataflow.loopIndices(nest, b.indices);
        b.walk(nest, new ArrayList<>(), new HashMap<>(), Dataflow.assignedOnce(nest), true);
        // an access standing at two places of the tree would be proven for one and unchecked in both: keep its checks
        Map<Integer, Integer> seen = new HashMap<>();
        List<Stmt> everything = new ArrayList<>(region.devicePrologue());
        everything.addAll(nest);
        b.all(everything, seen);
        return b.out.stream().filter(c -> c.access() != Expr.NO_ACCESS && seen.getOrDefault(c.access(), 0) == 1)
                .toList();
    }

    /** Counts the places of {@code stmts} where each load and store stands, by access id. */
    private void all(List<Stmt> stmts, Map<Integer, Integer> seen) {
        for (Expr e : Dataflow.expressions(stmts)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Load l) {
                    seen.merge(l.access(), 1, Integer::sum);
                }
            });
        }
        storesIn(stmts, seen);
    }

    private static void storesIn(List<Stmt> stmts, Map<Integer, Integer> seen) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                seen.merge(st.access(), 1, Integer::sum);
            } else if (s instanceof Stmt.If i) {
                storesIn(i.then(), seen);
                storesIn(i.otherwise(), seen);
            } else if (s instanceof Stmt.For f) {
                storesIn(f.body(), seen);
            } else if (s instanceof Stmt.While w) {
                storesIn(w.body(), seen);
            }
        }
    }

    /** {@code invariantLoops}: every loop in {@code loops} has bounds invariant in the nest. */
    private void walk(List<Stmt> stmts, List<Stmt.For> loops, Map<Var, Expr> defs, Set<Var> once, boolean invariantLoops) {
        Map<Var, Expr> scope = new HashMap<>(defs);
        for (Stmt s : stmts) {
            Linear lin = new Linear(indices, variant, scope);
            if (s instanceof Stmt.Assign a) {
                loads(a.value(), lin, loops, invariantLoops, s.line());
                if (once.contains(a.var()) && !Exprs.readsMemory(a.value())) {
                    scope.put(a.var(), a.value());
                }
            } else if (s instanceof Stmt.Store st) {
                if (st.row() != null) {
                    loads(st.row(), lin, loops, invariantLoops, s.line());
                }
                loads(st.index(), lin, loops, invariantLoops, s.line());
                loads(st.value(), lin, loops, invariantLoops, s.line());
                access(st.access(), st.array(), st.row(), st.index(), lin, loops, invariantLoops, s.line());
                storedRow(st.array(), st.row(), lin, loops);
            } else if (s instanceof Stmt.Atomic at) {
                // the atomic access itself keeps its check in the kernel
                for (Expr e : Dataflow.atomicOperands(at)) {
                    loads(e, lin, loops, invariantLoops, s.line());
                }
                storedRow(at.array(), at.row(), lin, loops);
            } else if (s instanceof Stmt.If i) {
                loads(i.cond(), lin, loops, invariantLoops, s.line());
                walk(i.then(), loops, scope, once, invariantLoops);
                walk(i.otherwise(), loops, scope, once, invariantLoops);
            } else if (s instanceof Stmt.For f) {
                loads(f.lower(), lin, loops, invariantLoops, s.line());
                loads(f.bound(), lin, loops, invariantLoops, s.line());
                boolean invariant = invariantLoops && invariant(f.lower()) && invariant(f.bound());
                loops.add(f);
                walk(f.body(), loops, scope, once, invariant);
                loops.remove(loops.size() - 1);
            } else if (s instanceof Stmt.While w) {
                // like an if: an access in the body is proven over every iteration of the loops around it
                loads(w.cond(), lin, loops, invariantLoops, s.line());
                walk(w.body(), loops, scope, once, invariantLoops);
            }
        }
    }

    private boolean invariant(Expr e) {
        return !Exprs.any(e, x -> x instanceof Expr.Load || (x instanceof Expr.Local l && variant.contains(l.var())));
    }

    private void loads(Expr e, Linear lin, List<Stmt.For> loops, boolean invariantLoops, int line) {
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Load l) {
                access(l.access(), l.array(), l.row(), l.index(), lin, loops, invariantLoops, line);
            }
        });
    }

    private void access(int id, org.acc4j.compiler.ir.ArrayRef array, Expr row, Expr index, Linear lin,
                        List<Stmt.For> loops, boolean invariantLoops, int line) {
        if (!invariantLoops) {
            return;
        }
        RangeCheck.Bound r = null;
        if (row != null) {
            r = bound(lin.of(row), loops);
            if (r == null) {
                return;
            }
        }
        RangeCheck.Bound c = bound(lin.of(index), loops);
        if (c != null) {
            out.add(new RangeCheck(id, array, r, c, line));
        }
    }

    /** The form as terms of the enclosing loops, or null when it is not linear in them. */
    private static RangeCheck.Bound bound(Linear.Form f, List<Stmt.For> loops) {
        if (f == null) {
            return null;
        }
        List<RangeCheck.Term> terms = new ArrayList<>();
        int found = 0;
        for (Stmt.For loop : loops) {
            Expr c = f.coefficient(loop.index());
            if (c != null) {
                terms.add(new RangeCheck.Term(loop, c));
                found++;
            }
        }
        return found == f.coefficients().size() ? new RangeCheck.Bound(terms, f.rest()) : null;
    }
}
