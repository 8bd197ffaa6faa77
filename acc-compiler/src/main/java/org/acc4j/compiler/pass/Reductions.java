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
            List<Reduction.Op> ops = new ArrayList<>();
            int[] firstLine = {0};
            String problem = updates(top.body(), v, ops, firstLine);
            if (problem == null && ops.stream().distinct().count() > 1) {
                problem = "it is accumulated with different operators (" + ops.stream().distinct().toList() + ")";
            }
            if (problem == null && reads(List.of(top), v) != ops.size()) {
                problem = "it is also read elsewhere in the loop";
            }
            if (problem == null && v.type().isFloat() && ops.get(0).ordinal() >= Reduction.Op.AND.ordinal()) {
                problem = "a bitwise operator on a floating-point value";
            }
            if (problem == null) {
                out.add(new Reduction(v, ops.get(0), firstLine[0]));
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

    /** Null when every assignment to {@code v} is an accumulation (their operators go to {@code ops}), else why not. */
    private static String updates(List<Stmt> stmts, Var v, List<Reduction.Op> ops, int[] firstLine) {
        for (int k = 0; k < stmts.size(); k++) {
            Stmt s = stmts.get(k);
            if (s instanceof Stmt.Assign a && a.var().equals(v)) {
                Reduction.Op op = accumulation(a.value(), v);
                if (op == null && k > 0) {
                    op = shortCircuit(stmts.get(k - 1), a.value(), v);
                }
                if (op == null) {
                    return "its update at line " + a.line() + " (" + v.name() + " = " + a.value()
                            + ") is not an accumulation v = v op e";
                }
                ops.add(op);
                if (firstLine[0] == 0) {
                    firstLine[0] = a.line();
                }
            } else if (s instanceof Stmt.If i) {
                String p = updates(i.then(), v, ops, firstLine);
                if (p == null) {
                    p = updates(i.otherwise(), v, ops, firstLine);
                }
                if (p != null) {
                    return p;
                }
            } else if (s instanceof Stmt.For f) {
                String p = updates(f.body(), v, ops, firstLine);
                if (p != null) {
                    return p;
                }
            } else if (s instanceof Stmt.While w) {
                String p = updates(w.body(), v, ops, firstLine);
                if (p != null) {
                    return p;
                }
            }
        }
        return null;
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
                    if (r == null) {
                        throw new Unsupported(f.line(), "reduction(" + item + "): " + (why.containsKey(name)
                                ? name + " is not a reduction: " + why.get(name)
                                : "no variable " + name + " is carried through the loop (with javac -g, locals keep their names)"));
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
