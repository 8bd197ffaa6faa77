package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;

/**
 * The shapes of counted loops: whether a loop read as a {@link Stmt.While} counts an index from a start to a bound by
 * a constant or invariant step with no other exit, and the {@link Stmt.For} it is then; each test that fails names
 * the reason a loop is not counted, for the diagnostics. Pure functions of the IR, used by {@link MethodReader}.
 */
final class CountedLoops {
    private CountedLoops() {
    }

    static boolean parallelClause(LoopSpec spec) {
        return spec.hasParallelLevel() || spec.independent() || spec.collapse() > 1;
    }

    static String stepNotConstant(Var v) {
        return "a loop whose index " + v.name() + " does not change by a constant at the end of each iteration";
    }

    /**
     * What {@code v = v + s} adds to {@code v}: {@code s}, or {@code -s} for {@code v = v - s} ({@code s + v} too),
     * when {@code s} is not a constant and does not read {@code v}; else null.
     */
    static Expr invariantStep(Stmt last, Var v) {
        if (last instanceof Stmt.Assign a && a.var().equals(v) && a.value() instanceof Expr.Binary b
                && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
            Expr s = b.left() instanceof Expr.Local l && l.var().equals(v) ? b.right()
                    : b.op() == BinOp.ADD && b.right() instanceof Expr.Local r && r.var().equals(v) ? b.left() : null;
            if (s == null || s instanceof Expr.Const || mentions(s, v)) {
                return null;
            }
            return b.op() == BinOp.ADD ? s : new Expr.Unary(UnOp.NEG, s);
        }
        return null;
    }

    /**
     * Null when the loop {@code w}, whose index {@code v} moves towards its bound by {@code step} (an expression; the
     * runtime checks that it is positive) at the end of each iteration, can be normalised to a counted loop
     * ({@link Stmt.Stride}), else why not.
     */
    static String strideProblem(Stmt.While w, List<Stmt> before, Var v, Expr step) {
        String loop = "a loop whose index " + v.name() + " steps by " + step;
        if (v.type() != Type.I32) {
            return loop + " and is a " + v.type().javaName() + " (a step that is not a constant needs an int index)";
        }
        Cond cond = condOf(w, v);
        if (cond != Cond.LT && cond != Cond.LE && cond != Cond.GT && cond != Cond.GE) {
            return loop + " and is tested with " + cond.symbol() + " (a step that is not a constant needs <, <=, > or >=)";
        }
        List<Stmt> body = w.body().subList(0, w.body().size() - 1);
        if (assigns(body, v)) {
            return "a loop whose index " + v.name() + " is also assigned in its body";
        }
        if (before.isEmpty() || !(before.get(before.size() - 1) instanceof Stmt.Assign a) || !a.var().equals(v)
                || mentions(a.value(), v)) {
            return loop + " and is not set just before the loop";
        }
        java.util.Set<Var> changing = new java.util.HashSet<>();
        Dataflow.assigned(body, changing);
        changing.add(v);
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        for (Expr e : List.of(a.value(), bound, step)) {
            if (Exprs.any(e, x -> x instanceof Expr.Load || x instanceof Expr.Local l && changing.contains(l.var()))) {
                return loop + ", and its " + (e == step ? "step" : e == bound ? "bound " : "start ") + (e == step ? ""
                        : e.toString()) + " may change while it runs (a step that is not a constant needs its start, "
                        + "bound and step invariant)";
            }
        }
        return null;
    }

    /** A loop body as a {@link Stmt.While}: a leading {@code if (c) ... else break;} becomes its test. */
    static Stmt.While whileOf(List<Stmt> stmts, int line) {
        if (!stmts.isEmpty() && stmts.get(0) instanceof Stmt.If i) {
            boolean breakElse = i.otherwise().size() == 1 && i.otherwise().get(0) instanceof Stmt.Break;
            boolean breakThen = i.then().size() == 1 && i.then().get(0) instanceof Stmt.Break;
            if (breakElse && !Dataflow.leaves(i.then()) || breakThen && i.otherwise().isEmpty()) {
                List<Stmt> rest = new ArrayList<>(breakElse ? i.then() : List.of());
                rest.addAll(stmts.subList(1, stmts.size()));
                return new Stmt.While(breakElse ? i.cond() : negate(i.cond()), rest, line);
            }
        }
        return new Stmt.While(new Expr.Const(Type.PRED, 1), stmts, line);
    }

    /** The local a loop's test compares with something else, or null. */
    static Var testedIndex(Stmt.While w) {
        if (w.cond() instanceof Expr.Compare c) {
            if (c.left() instanceof Expr.Local l && !mentions(c.right(), l.var())) {
                return l.var();
            }
            if (c.right() instanceof Expr.Local l && !mentions(c.left(), l.var())) {
                return l.var();
            }
        }
        return null;
    }

    /** Null when {@code w} is a counted loop, else why not (the words a parallel loop's diagnostic uses). */
    static String notCounted(Stmt.While w) {
        if (w.endless()) {
            return !w.body().isEmpty() && w.body().get(0) instanceof Stmt.If i && i.line() == w.line()
                    ? "a loop whose test has && or || (a parallel loop's test is one comparison of its index with a bound)"
                    : "a loop that is not a counted for loop (no test at its head)";
        }
        if (!(w.cond() instanceof Expr.Compare)) {
            return "a loop condition that is not a comparison";
        }
        Var v = testedIndex(w);
        if (v == null) {
            return "a loop condition that does not compare the index with a bound";
        }
        if (v.type() != Type.I32 && v.type() != Type.I64) {
            return "a loop whose index is a " + v.type().javaName();
        }
        if (!w.body().isEmpty() && w.body().get(0) instanceof Stmt.If i && i.line() == w.line() && hasBreak(i.then())) {
            return "a loop over " + v.name() + " whose test has && or || (a parallel loop's test is one comparison of "
                    + "its index with a bound)";
        }
        if (hasBreak(w.body())) {
            return "a break out of the loop over " + v.name() + " (a parallel loop runs all its iterations; a loop "
                    + "inside it may break)";
        }
        List<Stmt> body = w.body();
        long step = body.isEmpty() ? 0 : increment(body.get(body.size() - 1), v);
        if (step == 0) {
            return stepNotConstant(v);
        }
        if (step == Long.MIN_VALUE) {
            return "a loop whose index " + v.name() + " steps by Long.MIN_VALUE";
        }
        if (assigns(body.subList(0, body.size() - 1), v)) {
            return "a loop whose index " + v.name() + " is also assigned in its body";
        }
        Cond cond = condOf(w, v);
        return switch (cond) {
            case LT, LE -> step > 0 ? null : "a loop whose index " + v.name() + " steps away from its bound";
            case GT, GE -> step < 0 ? null : "a loop whose index " + v.name() + " steps away from its bound";
            // either direction; whether the index reaches the bound is checked before a parallel launch
            case NE -> null;
            default -> "a loop test with " + cond.symbol() + " (use <, <=, >, >= or !=)";
        };
    }

    /** The test of a counted loop as {@code index cond bound}. */
    static Cond condOf(Stmt.While w, Var v) {
        Expr.Compare c = (Expr.Compare) w.cond();
        return c.left() instanceof Expr.Local l && l.var().equals(v) ? c.cond() : c.cond().swap();
    }

    /** {@code w}, which {@link #notCounted} accepts, as a {@link Stmt.For}; its start is taken from {@code before}. */
    static Stmt.For counted(Stmt.While w, List<Stmt> before, LoopSpec spec) {
        Var v = testedIndex(w);
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        List<Stmt> stmts = new ArrayList<>(w.body());
        long step = increment(stmts.remove(stmts.size() - 1), v);
        Expr lower = new Expr.Local(v);
        if (!before.isEmpty() && before.get(before.size() - 1) instanceof Stmt.Assign a && a.var().equals(v)
                && !mentions(a.value(), v)) {
            before.remove(before.size() - 1);
            lower = a.value();
        }
        return new Stmt.For(v, lower, condOf(w, v), bound, step, spec, stmts, w.line());
    }

    /** Whether {@code stmts} break out of the loop whose body they are (not counting breaks of inner loops). */
    static boolean hasBreak(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Break || s instanceof Stmt.If i && (hasBreak(i.then()) || hasBreak(i.otherwise()))) {
                return true;
            }
        }
        return false;
    }

    /** The line of the first break of a loop body (0 if none). */
    static int breakLine(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Break b) {
                return b.line();
            }
            if (s instanceof Stmt.If i) {
                int l = breakLine(i.then());
                if (l == 0) {
                    l = breakLine(i.otherwise());
                }
                if (l != 0) {
                    return l;
                }
            }
        }
        return 0;
    }

    /** The constant by which {@code s} changes {@code v} ({@code v = v + c} or {@code v = v - c}), or 0. */
    static long increment(Stmt s, Var v) {
        if (s instanceof Stmt.Assign a && a.var().equals(v) && a.value() instanceof Expr.Binary b
                && b.left() instanceof Expr.Local l && l.var().equals(v) && b.right() instanceof Expr.Const k) {
            long c = v.type() == Type.I32 ? (int) k.bits() : k.bits();
            return switch (b.op()) {
                case ADD -> c;
                case SUB -> -c;
                default -> 0;
            };
        }
        return 0;
    }

    static boolean assigns(List<Stmt> stmts, Var v) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && a.var().equals(v)) {
                return true;
            }
            if (s instanceof Stmt.If i && (assigns(i.then(), v) || assigns(i.otherwise(), v))) {
                return true;
            }
            if (s instanceof Stmt.For f && (f.index().equals(v) || assigns(f.body(), v))) {
                return true;
            }
            if (s instanceof Stmt.While w && assigns(w.body(), v)) {
                return true;
            }
        }
        return false;
    }

    static boolean mentions(Expr e, Var v) {
        return Exprs.mentions(e, v);
    }

    static boolean readsMemory(Expr e) {
        return Exprs.readsMemory(e);
    }

    static Expr negate(Expr cond) {
        if (cond instanceof Expr.Compare c) {
            return c.negate();
        }
        if (cond instanceof Expr.Unary u && u.op() == UnOp.NOT) {
            return u.operand();
        }
        return new Expr.Unary(UnOp.NOT, cond);
    }
}
