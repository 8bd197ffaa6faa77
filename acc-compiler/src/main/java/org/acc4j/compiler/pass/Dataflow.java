package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/** Small dataflow facts over structured statements: assigned variables, live-in variables, expressions. */
public final class Dataflow {
    private Dataflow() {
    }

    /** Adds every variable assigned in {@code stmts} (loop indices included) to {@code out}. */
    public static void assigned(List<Stmt> stmts, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                out.add(a.var());
            } else if (s instanceof Stmt.Atomic at && at.result() != null) {
                out.add(at.result());
            } else if (s instanceof Stmt.If i) {
                assigned(i.then(), out);
                assigned(i.otherwise(), out);
            } else if (s instanceof Stmt.For f) {
                out.add(f.index());
                assigned(f.body(), out);
            } else if (s instanceof Stmt.While w) {
                assigned(w.body(), out);
            }
        }
    }

    /** Adds the index of every loop in {@code stmts}, at any depth, to {@code out}. */
    public static void loopIndices(List<Stmt> stmts, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                out.add(f.index());
                loopIndices(f.body(), out);
            } else if (s instanceof Stmt.If i) {
                loopIndices(i.then(), out);
                loopIndices(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                loopIndices(w.body(), out);
            }
        }
    }

    /**
     * The variables {@code stmts} assign exactly once, outside any {@code if} and not as a loop index: the
     * candidates for substituting their definition into subscripts.
     */
    public static Set<Var> assignedOnce(List<Stmt> stmts) {
        Map<Var, Integer> counts = new java.util.HashMap<>();
        countAssignments(stmts, counts, false);
        Set<Var> once = new HashSet<>();
        counts.forEach((v, n) -> {
            if (n == 1) {
                once.add(v);
            }
        });
        return once;
    }

    private static void countAssignments(List<Stmt> stmts, Map<Var, Integer> counts, boolean conditional) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                counts.merge(a.var(), conditional ? 2 : 1, Integer::sum);
            } else if (s instanceof Stmt.Atomic at && at.result() != null) {
                // a value read from memory: never a definition to substitute
                counts.merge(at.result(), 2, Integer::sum);
            } else if (s instanceof Stmt.If i) {
                countAssignments(i.then(), counts, true);
                countAssignments(i.otherwise(), counts, true);
            } else if (s instanceof Stmt.For f) {
                counts.merge(f.index(), 2, Integer::sum);
                countAssignments(f.body(), counts, conditional);
            } else if (s instanceof Stmt.While w) {
                // a body that may run any number of times, and leave by a break at any point
                countAssignments(w.body(), counts, true);
            }
        }
    }

    /**
     * Adds to {@code out} the variables {@code stmts} may read before assigning them (in program order,
     * with definite assignment: a branch defines a variable only when both arms do, a loop body never).
     */
    public static void liveIn(List<Stmt> stmts, Set<Var> out) {
        liveIn(stmts, new HashSet<>(), out);
    }

    private static void liveIn(List<Stmt> stmts, Set<Var> defined, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                reads(a.value(), defined, out);
                defined.add(a.var());
            } else if (s instanceof Stmt.Store st) {
                if (st.row() != null) {
                    reads(st.row(), defined, out);
                }
                reads(st.index(), defined, out);
                reads(st.value(), defined, out);
            } else if (s instanceof Stmt.Atomic at) {
                for (Expr e : atomicOperands(at)) {
                    reads(e, defined, out);
                }
                if (at.result() != null) {
                    defined.add(at.result());
                }
            } else if (s instanceof Stmt.If i) {
                reads(i.cond(), defined, out);
                Set<Var> t = new HashSet<>(defined);
                Set<Var> e = new HashSet<>(defined);
                liveIn(i.then(), t, out);
                liveIn(i.otherwise(), e, out);
                // an arm that always breaks does not reach the statements after the if
                if (leaves(i.then())) {
                    t = e;
                } else if (!leaves(i.otherwise())) {
                    t.retainAll(e);
                }
                defined.addAll(t);
            } else if (s instanceof Stmt.For f) {
                reads(f.lower(), defined, out);
                Set<Var> inner = new HashSet<>(defined);
                inner.add(f.index());
                reads(f.bound(), inner, out);
                liveIn(f.body(), inner, out);
                defined.add(f.index());
            } else if (s instanceof Stmt.While w) {
                // the test runs first; the body defines nothing after the loop (it may run no time)
                reads(w.cond(), defined, out);
                liveIn(w.body(), new HashSet<>(defined), out);
            }
        }
    }

    /** The expressions an atomic statement evaluates, in order: its row, its index and its operands. */
    public static List<Expr> atomicOperands(Stmt.Atomic at) {
        List<Expr> out = new ArrayList<>();
        if (at.row() != null) {
            out.add(at.row());
        }
        out.add(at.index());
        out.addAll(at.operands());
        return out;
    }

    /** Whether {@code stmts} always end in a {@link Stmt.Break} (so control never reaches what follows them). */
    public static boolean leaves(List<Stmt> stmts) {
        if (stmts.isEmpty()) {
            return false;
        }
        Stmt last = stmts.get(stmts.size() - 1);
        return last instanceof Stmt.Break
                || (last instanceof Stmt.If i && leaves(i.then()) && leaves(i.otherwise()));
    }

    private static void reads(Expr e, Set<Var> defined, Set<Var> out) {
        forEach(e, x -> {
            if (x instanceof Expr.Local l && !defined.contains(l.var())) {
                out.add(l.var());
            }
        });
    }

    /** Visits {@code e} and every expression inside it. */
    public static void forEach(Expr e, Consumer<Expr> visit) {
        visit.accept(e);
        for (Expr c : Exprs.children(e)) {
            forEach(c, visit);
        }
    }

    /**
     * The largest access id of the loads and stores of {@code stmts}: a pass that copies an access numbers the copy
     * past it.
     */
    public static int lastAccess(List<Stmt> stmts) {
        int[] last = {Expr.NO_ACCESS};
        for (Expr e : expressions(stmts)) {
            forEach(e, x -> {
                if (x instanceof Expr.Load l) {
                    last[0] = Math.max(last[0], l.access());
                }
            });
        }
        lastStore(stmts, last);
        return last[0];
    }

    private static void lastStore(List<Stmt> stmts, int[] last) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                last[0] = Math.max(last[0], st.access());
            } else if (s instanceof Stmt.If i) {
                lastStore(i.then(), last);
                lastStore(i.otherwise(), last);
            } else if (s instanceof Stmt.For f) {
                lastStore(f.body(), last);
            } else if (s instanceof Stmt.While w) {
                lastStore(w.body(), last);
            }
        }
    }

    /** Every top-level expression of {@code stmts} (conditions, bounds, indices, values), recursively. */
    public static List<Expr> expressions(List<Stmt> stmts) {
        List<Expr> out = new ArrayList<>();
        collect(stmts, out);
        return out;
    }

    private static void collect(List<Stmt> stmts, List<Expr> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                out.add(a.value());
            } else if (s instanceof Stmt.Store st) {
                if (st.row() != null) {
                    out.add(st.row());
                }
                out.add(st.index());
                out.add(st.value());
            } else if (s instanceof Stmt.Atomic at) {
                out.addAll(atomicOperands(at));
            } else if (s instanceof Stmt.If i) {
                out.add(i.cond());
                collect(i.then(), out);
                collect(i.otherwise(), out);
            } else if (s instanceof Stmt.For f) {
                out.add(f.lower());
                out.add(f.bound());
                collect(f.body(), out);
            } else if (s instanceof Stmt.While w) {
                out.add(w.cond());
                collect(w.body(), out);
            }
        }
    }

    /**
     * The arrays {@code stmts} use, in order of first use (stores before loads at each level), each with
     * {@code {read, written}}.
     */
    public static Map<ArrayRef, boolean[]> arrayUses(List<Stmt> stmts) {
        Map<ArrayRef, boolean[]> uses = new LinkedHashMap<>();
        collectUses(stmts, uses);
        return uses;
    }

    private static void collectUses(List<Stmt> stmts, Map<ArrayRef, boolean[]> uses) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                uses.computeIfAbsent(st.array(), k -> new boolean[2])[1] = true;
            } else if (s instanceof Stmt.Atomic at) {
                boolean[] u = uses.computeIfAbsent(at.array(), k -> new boolean[2]);
                u[0] = true;
                u[1] |= at.op().writes();
            } else if (s instanceof Stmt.If i) {
                collectUses(i.then(), uses);
                collectUses(i.otherwise(), uses);
            } else if (s instanceof Stmt.For f) {
                collectUses(f.body(), uses);
            } else if (s instanceof Stmt.While w) {
                collectUses(w.body(), uses);
            }
        }
        for (Expr e : expressions(stmts)) {
            forEach(e, x -> {
                if (x instanceof Expr.Load l) {
                    uses.computeIfAbsent(l.array(), k -> new boolean[2])[0] = true;
                } else if (x instanceof Expr.Length l) {
                    uses.computeIfAbsent(l.array(), k -> new boolean[2]);
                }
            });
        }
    }
}
