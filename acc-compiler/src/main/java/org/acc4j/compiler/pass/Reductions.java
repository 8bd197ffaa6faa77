package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.MathFn;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Finds the reductions of a top-level loop nest, marked or not: a local that the nest reads before assigning
 * (so it is carried from one iteration to the next) is a reduction when every assignment to it in the nest is an
 * accumulation {@code v = v op e} ({@code e op v} for a commutative op, {@code v - e} counting as {@code +},
 * {@code Math.max(v, e)}, {@code Math.min(v, e)}, and {@code v = v && e} / {@code v = v || e} on booleans) with
 * {@code e} free of {@code v}, all with one operator, and nothing else in the nest reads it.
 *
 * <p>A maximum or minimum may also be written as Java's {@code if}: {@code if (e > v) v = e;} ({@code v < e},
 * {@code >=}, {@code <=}, and {@code if (e < v) v = e;} for a minimum), or {@code v = e > v ? e : v}; see
 * {@link Reduction.Form} for what the comparison means. On {@code float} and {@code double} the compiler accepts
 * it only where {@code e} is never {@code -0.0} ({@code Math.abs(x)}, {@code x * x}, an {@code int} converted,
 * sums and square roots of such values, a local assigned only such values in the nest): otherwise the sign of
 * a zero result would depend on which zero the loop meets first, which the grid's combining order cannot know.
 *
 * <p>A {@code reduction} clause on a loop of the nest ({@code "+:s"}, {@code "max:m, &&:ok"}) must name such a
 * variable with that operator; otherwise the method stays on the host, and the diagnostic says which update
 * does not fit.
 */
public final class Reductions {
    private Reductions() {
    }

    /** The nest's reductions, in order of the variables' slots. */
    public static List<Reduction> find(Stmt.For top) {
        Set<Var> live = new LinkedHashSet<>();
        Dataflow.liveIn(top.body(), live);
        Set<Var> assigned = new LinkedHashSet<>();
        Dataflow.assigned(top.body(), assigned);
        Set<Var> indices = new LinkedHashSet<>();
        indices(List.of(top), indices);
        List<Reduction> out = new ArrayList<>();
        Map<String, String> why = new HashMap<>();
        for (Var v : live) {
            if (!assigned.contains(v) || indices.contains(v) || v.type() == Type.PRED) {
                continue;
            }
            List<Update> ops = new ArrayList<>();
            String problem = problem(top, v, live, ops);
            if (problem == null) {
                out.add(new Reduction(v, ops.get(0).op(), ops.get(0).form(), ops.get(0).line()));
            } else {
                why.put(v.name(), problem);
            }
        }
        checkClauses(List.of(top), out, why);
        if (out.size() > Reduction.MAX_PER_REGION) {
            throw new Unsupported(top.line(), "more than " + Reduction.MAX_PER_REGION + " reductions in one loop nest");
        }
        out.sort(java.util.Comparator.comparingInt(r -> r.var().slot()));
        return List.copyOf(out);
    }

    /**
     * Why {@code v}, a local the nest {@code top} carries from one iteration to the next, is not a reduction, or
     * null when it is one.
     */
    public static String whyNot(Stmt.For top, Var v) {
        Set<Var> live = new LinkedHashSet<>();
        Dataflow.liveIn(top.body(), live);
        return problem(top, v, live, new ArrayList<>());
    }

    /** Null when the nest's updates of {@code v} (which go to {@code ops}) make it a reduction, else why not. */
    private static String problem(Stmt.For top, Var v, Set<Var> live, List<Update> ops) {
        String problem = updates(top.body(), v, ops, top.body(), live);
        if (problem == null && ops.stream().map(u -> u.op() + " " + u.form()).distinct().count() > 1) {
            problem = "it is accumulated with different operators (" + ops.stream().map(Update::describe)
                    .distinct().toList() + ")";
        }
        if (problem == null && reads(List.of(top), v) != ops.stream().mapToInt(Update::reads).sum()) {
            problem = "it is also read elsewhere in the loop";
        }
        if (problem == null && v.type().isFloat() && ops.get(0).op().ordinal() >= Reduction.Op.AND.ordinal()) {
            problem = "a bitwise operator on a floating-point value";
        }
        return problem;
    }

    private static void indices(List<Stmt> stmts, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                out.add(f.index());
                indices(f.body(), out);
            } else if (s instanceof Stmt.If i) {
                indices(i.then(), out);
                indices(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                indices(w.body(), out);
            }
        }
    }

    /** One update of a reduction variable: its operator and form, how often it reads the variable, its line. */
    private record Update(Reduction.Op op, Reduction.Form form, int reads, int line) {
        String describe() {
            return form == Reduction.Form.OPERATOR ? op.symbol() : op.symbol() + " as an if";
        }
    }

    /**
     * Null when every assignment to {@code v} in {@code stmts} is an accumulation (the updates go to {@code ops}),
     * else why not; {@code nest} is the nest's body and {@code live} its live-in locals.
     */
    private static String updates(List<Stmt> stmts, Var v, List<Update> ops, List<Stmt> nest, Set<Var> live) {
        for (int k = 0; k < stmts.size(); k++) {
            Stmt s = stmts.get(k);
            if (s instanceof Stmt.Assign a && a.var().equals(v)) {
                Reduction.Op op = accumulation(a.value(), v);
                Update u = op == null ? null : new Update(op, Reduction.Form.OPERATOR, 1, a.line());
                if (u == null && k > 0) {
                    op = shortCircuit(stmts.get(k - 1), a.value(), v);
                    u = op == null ? null : new Update(op, Reduction.Form.OPERATOR, 1, a.line());
                }
                if (u == null && k > 0 && a.value() instanceof Expr.Local t && stmts.get(k - 1) instanceof Stmt.If i) {
                    // v = e > v ? e : v, as javac writes it: if (e > v) t = e; else t = v; then v = t
                    Replacement r = replacement(i, t.var(), v);
                    if (r != null && r.kept()) {
                        String p = exact(r, v, nest, live, a.line());
                        if (p != null) {
                            return p;
                        }
                        u = new Update(r.op(), r.form(), 2, a.line());
                    }
                }
                if (u == null) {
                    return "its update at line " + a.line() + " (" + v.name() + " = " + a.value()
                            + ") is not an accumulation v = v op e";
                }
                ops.add(u);
            } else if (s instanceof Stmt.If i) {
                Replacement r = replacement(i, v, v);
                if (r != null && !r.kept()) {
                    String p = exact(r, v, nest, live, i.line());
                    if (p != null) {
                        return p;
                    }
                    ops.add(new Update(r.op(), r.form(), 1, i.line()));
                    continue;
                }
                String p = updates(i.then(), v, ops, nest, live);
                if (p == null) {
                    p = updates(i.otherwise(), v, ops, nest, live);
                }
                if (p != null) {
                    return p;
                }
            } else if (s instanceof Stmt.For f) {
                String p = updates(f.body(), v, ops, nest, live);
                if (p != null) {
                    return p;
                }
            } else if (s instanceof Stmt.While w) {
                String p = updates(w.body(), v, ops, nest, live);
                if (p != null) {
                    return p;
                }
            }
        }
        return null;
    }

    /**
     * A maximum or minimum written as an {@code if}: the operator, the form, the replacing value, and whether the
     * other arm assigns {@code v} to {@code target} ({@code kept}, the conditional expression's shape).
     */
    private record Replacement(Reduction.Op op, Reduction.Form form, Expr value, boolean kept) {
    }

    /**
     * {@code if (e > v) target = e;} (then {@code target} is {@code v}; {@code kept} false) or
     * {@code if (e > v) target = e; else target = v;} ({@code kept} true), with any of the comparisons of
     * {@link Reduction.Form}, either way round, an arm swapped with its test negated, {@code e} free of {@code v}
     * and, on floating-point values, a test that is false when a value is NaN; else null.
     */
    private static Replacement replacement(Stmt.If i, Var target, Var v) {
        Expr self = new Expr.Local(v);
        if (!(i.cond() instanceof Expr.Compare c)) {
            return null;
        }
        boolean kept = !target.equals(v);
        List<Stmt> replace = i.then();
        List<Stmt> keep = i.otherwise();
        if (kept ? assigns(replace, target, self) : replace.isEmpty()) {
            c = c.negate();
            replace = i.otherwise();
            keep = i.then();
        }
        if (replace.size() != 1 || !(replace.get(0) instanceof Stmt.Assign r) || !r.var().equals(target)
                || (kept ? !assigns(keep, target, self) : !keep.isEmpty())) {
            return null;
        }
        if (c.left().type().isFloat() && c.unordered()) {
            return null;
        }
        Expr e = r.value();
        if (Exprs.mentions(e, v) || e.type() != v.type()) {
            return null;
        }
        org.acc4j.compiler.ir.Cond cond;
        if (c.left().equals(e) && c.right().equals(self)) {
            cond = c.cond();
        } else if (c.left().equals(self) && c.right().equals(e)) {
            cond = c.cond().swap();
        } else {
            return null;
        }
        // cond is now "e cond v"
        return switch (cond) {
            case GT -> new Replacement(Reduction.Op.MAX, Reduction.Form.IF_STRICT, e, kept);
            case GE -> new Replacement(Reduction.Op.MAX, Reduction.Form.IF_OR_EQUAL, e, kept);
            case LT -> new Replacement(Reduction.Op.MIN, Reduction.Form.IF_STRICT, e, kept);
            case LE -> new Replacement(Reduction.Op.MIN, Reduction.Form.IF_OR_EQUAL, e, kept);
            default -> null;
        };
    }

    /** Whether {@code stmts} is the one statement {@code target = value}. */
    private static boolean assigns(List<Stmt> stmts, Var target, Expr value) {
        return stmts.size() == 1 && stmts.get(0) instanceof Stmt.Assign a && a.var().equals(target)
                && a.value().equals(value);
    }

    /** Null when the device's combining gives the loop's exact result for this replacement, else why not. */
    private static String exact(Replacement r, Var v, List<Stmt> nest, Set<Var> live, int line) {
        if (!v.type().isFloat() || neverNegativeZero(r.value(), nest, live, new java.util.HashSet<>())) {
            return null;
        }
        return "its update at line " + line + " replaces it by " + r.value() + ", which may be -0.0, so the sign of"
                + " a zero " + r.op().symbol() + " would depend on which zero the loop meets first (a value that is"
                + " never -0.0, such as Math.abs(x), or Math." + r.op().symbol() + ", is a reduction)";
    }

    /**
     * Whether {@code e} is never {@code -0.0} in the nest whose body is {@code nest}: a constant other than
     * {@code -0.0}, {@code Math.abs}, an integer converted, {@code x * x}, a sum with such an
     * operand, a difference or square root of such a value, a conditional of two, a local the nest assigns only
     * such values before any read ({@code live} holds the nest's live-in locals). NaN is allowed.
     */
    private static boolean neverNegativeZero(Expr e, List<Stmt> nest, Set<Var> live, Set<Var> seen) {
        if (!e.type().isFloat()) {
            return true;
        }
        if (e instanceof Expr.Const k) {
            return k.type() == Type.F64 ? k.bits() != Long.MIN_VALUE : k.bits() != 0x8000_0000L;
        }
        if (e instanceof Expr.Convert c) {
            return !c.operand().type().isFloat() || neverNegativeZero(c.operand(), nest, live, seen);
        }
        if (e instanceof Expr.Call c) {
            return c.fn() == MathFn.ABS
                    || c.fn() == MathFn.SQRT && neverNegativeZero(c.args().get(0), nest, live, seen);
        }
        if (e instanceof Expr.Binary b) {
            return switch (b.op()) {
                case MUL -> b.left().equals(b.right());
                case ADD -> neverNegativeZero(b.left(), nest, live, seen) || neverNegativeZero(b.right(), nest, live, seen);
                case SUB -> neverNegativeZero(b.left(), nest, live, seen);
                default -> false;
            };
        }
        if (e instanceof Expr.Select s) {
            return neverNegativeZero(s.ifTrue(), nest, live, seen) && neverNegativeZero(s.ifFalse(), nest, live, seen);
        }
        if (e instanceof Expr.Local l) {
            if (live.contains(l.var())) {
                return false;
            }
            if (!seen.add(l.var())) {
                return true;
            }
            List<Expr> values = new ArrayList<>();
            assignments(nest, l.var(), values);
            return !values.isEmpty() && values.stream().allMatch(x -> neverNegativeZero(x, nest, live, seen));
        }
        return false;
    }

    /** The values {@code stmts} assign to {@code v}, at any depth. */
    private static void assignments(List<Stmt> stmts, Var v, List<Expr> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && a.var().equals(v)) {
                out.add(a.value());
            } else if (s instanceof Stmt.If i) {
                assignments(i.then(), v, out);
                assignments(i.otherwise(), v, out);
            } else if (s instanceof Stmt.For f) {
                assignments(f.body(), v, out);
            } else if (s instanceof Stmt.While w) {
                assignments(w.body(), v, out);
            }
        }
    }

    /**
     * {@code v = v && e} and {@code v = v || e} as javac compiles them: {@code if (v != 0) t = e; else t = 0;} then
     * {@code v = t} (for {@code ||}: {@code if (v == 0) t = e; else t = 1;}), with {@code e} free of {@code v}.
     * Each thread's private accumulator runs the same code, so only the operator need be known.
     */
    private static Reduction.Op shortCircuit(Stmt before, Expr value, Var v) {
        if (!(value instanceof Expr.Local t) || !(before instanceof Stmt.If i) || v.type() != Type.I32
                || !(i.cond() instanceof Expr.Compare c) || !c.left().equals(new Expr.Local(v)) || !isConst(c.right(), 0)
                || i.otherwise().size() != 1 || !(i.otherwise().get(0) instanceof Stmt.Assign e)
                || !e.var().equals(t.var())) {
            return null;
        }
        Set<Var> assigned = new java.util.HashSet<>();
        Dataflow.assigned(i.then(), assigned);
        boolean free = Dataflow.expressions(i.then()).stream().noneMatch(x -> Exprs.mentions(x, v)) && !assigned.contains(v);
        if (!free) {
            return null;
        }
        if (c.cond() == org.acc4j.compiler.ir.Cond.NE && isConst(e.value(), 0)) {
            return Reduction.Op.AND;
        }
        if (c.cond() == org.acc4j.compiler.ir.Cond.EQ && isConst(e.value(), 1)) {
            return Reduction.Op.OR;
        }
        return null;
    }

    /** The operator of {@code value} as an update of {@code v}, or null. */
    static Reduction.Op accumulation(Expr value, Var v) {
        Expr self = new Expr.Local(v);
        if (value instanceof Expr.Binary b) {
            Reduction.Op op = switch (b.op()) {
                case ADD, SUB -> Reduction.Op.ADD;
                case MUL -> Reduction.Op.MUL;
                case AND -> Reduction.Op.AND;
                case OR -> Reduction.Op.OR;
                case XOR -> Reduction.Op.XOR;
                default -> null;
            };
            if (op == null) {
                return null;
            }
            if (b.left().equals(self) && !Exprs.mentions(b.right(), v)) {
                return op;
            }
            if (b.op() != BinOp.SUB && b.right().equals(self) && !Exprs.mentions(b.left(), v)) {
                return op;
            }
            return null;
        }
        if (value instanceof Expr.Call c && (c.fn() == MathFn.MAX || c.fn() == MathFn.MIN)) {
            Reduction.Op op = c.fn() == MathFn.MAX ? Reduction.Op.MAX : Reduction.Op.MIN;
            Expr a = c.args().get(0);
            Expr b = c.args().get(1);
            if (a.equals(self) && !Exprs.mentions(b, v) || b.equals(self) && !Exprs.mentions(a, v)) {
                return op;
            }
            return null;
        }
        return null;
    }

    private static boolean isConst(Expr e, long bits) {
        return e instanceof Expr.Const k && k.type() == Type.I32 && k.bits() == bits;
    }

    /** How many times {@code stmts} read {@code v}. */
    private static int reads(List<Stmt> stmts, Var v) {
        int[] n = {0};
        for (Expr e : Dataflow.expressions(stmts)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Local l && l.var().equals(v)) {
                    n[0]++;
                }
            });
        }
        return n[0];
    }

    /**
     * The reduction a clause on the inner loop {@code f} names when its variable is private to an iteration of a
     * loop around {@code f} (set before {@code f} in that iteration, such as a row's sum {@code s} in
     * {@code for i { s = 0; for j: s += a[i][j]; r[i] = s; }}): a reduction over {@code f} alone, or null when no
     * local of that name is carried through {@code f}. A variable carried through {@code f} that is no reduction
     * over it is an error that says why.
     */
    private static Reduction inner(Stmt.For f, String name, Reduction.Op op) {
        Set<Var> live = new LinkedHashSet<>();
        Dataflow.liveIn(f.body(), live);
        Set<Var> assigned = new LinkedHashSet<>();
        Dataflow.assigned(f.body(), assigned);
        for (Var v : live) {
            if (!v.name().equals(name) || !assigned.contains(v)) {
                continue;
            }
            List<Update> ops = new ArrayList<>();
            String problem = problem(f, v, live, ops);
            if (problem != null) {
                throw new Unsupported(f.line(), "reduction(" + op.symbol() + ":" + name + "): " + name
                        + " is not a reduction over the loop at line " + f.line() + ": " + problem);
            }
            return new Reduction(v, ops.get(0).op(), ops.get(0).form(), ops.get(0).line());
        }
        return null;
    }

    private static void checkClauses(List<Stmt> stmts, List<Reduction> found, Map<String, String> why) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                for (String item : f.spec().reductionItems()) {
                    int colon = item.lastIndexOf(':');
                    Reduction.Op op = colon > 0 ? Reduction.Op.named(item.substring(0, colon).trim()) : null;
                    String name = colon > 0 ? item.substring(colon + 1).trim() : "";
                    if (op == null || name.isEmpty()) {
                        throw new Unsupported(f.line(), "the clause reduction(" + item + ") (write it as op:variable, "
                                + "op one of + * max min & | ^ && ||)");
                    }
                    Reduction r = found.stream().filter(x -> x.var().name().equals(name)).findFirst().orElse(null);
                    if (r == null && !why.containsKey(name)) {
                        r = inner(f, name, op);
                    }
                    if (r == null) {
                        throw new Unsupported(f.line(), "reduction(" + item + "): " + (why.containsKey(name)
                                ? name + " is not a reduction: " + why.get(name)
                                : "no variable " + name + " is accumulated in this loop (a reduction names a local that the"
                                + " loop updates as v = v op e; with javac -g, locals keep their names)"));
                    }
                    if (r.op() != op) {
                        throw new Unsupported(f.line(), "reduction(" + item + "): " + name + " is accumulated with "
                                + r.op().symbol() + ", not " + op.symbol());
                    }
                }
                checkClauses(f.body(), found, why);
            } else if (s instanceof Stmt.If i) {
                checkClauses(i.then(), found, why);
                checkClauses(i.otherwise(), found, why);
            } else if (s instanceof Stmt.While w) {
                checkClauses(w.body(), found, why);
            }
        }
    }
}
