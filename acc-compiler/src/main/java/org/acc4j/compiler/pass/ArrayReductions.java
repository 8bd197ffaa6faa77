package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.MathFn;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * Reductions into array elements (OpenACC's array reductions): in a top-level loop nest, an array {@code c} whose
 * every access is an update {@code c[k] = c[k] op e} ({@code +=}, {@code -=}, {@code Math.max}, {@code Math.min},
 * {@code &=}, {@code |=}, {@code ^=}, one operator for the array, {@code e} free of {@code c}) at a subscript {@code k}
 * with a small range known at compile time: a constant ({@code c[0] += x; c[1] += y;}), or a sum of constants and
 * indices of loops inside the nest with constant bounds ({@code for (k = 0; k < 8; k++) c[k] += w;}), at most
 * {@link #MAX_ELEMENTS} elements in all.
 *
 * <p>Each update becomes an atomic update of the element ({@link Stmt.Atomic}) where the operator gives Java's
 * result in every order of the updates: on {@code int} and {@code long} elements every operator but the product
 * (associative and commutative on integers, as the scalar reductions on integers are exact), and on {@code float}
 * and {@code double} elements {@code Math.max} and {@code Math.min} (whose atomic forms keep their NaN and signed
 * zero rules, which make them associative and commutative). The device copy of {@code c} is updated in place,
 * wherever it lives. A floating-point sum ({@code +=}, {@code -=}) depends on the order of the updates, which atomic
 * adds do not fix: it becomes atomic adds only where the user allowed another order, with a {@code reduction} clause
 * naming the array on a loop of the nest ({@code +:c}, or OpenACC's section {@code +:c[0:n]}; the item is taken off
 * the loop, the atomics doing its work) or {@code @Kernels(relaxed = true)}; each element's result then lies within
 * {@code (n - 1) u sum|x_i|} of the exact sum to first order (the bound of recursive summation in any order), which
 * the report states. Otherwise such a nest stays on the host with a diagnostic that names the array and says what
 * allows it. So does a product, and an array of {@code byte}, {@code short}, {@code char} or {@code boolean}.
 */
public final class ArrayReductions {
    /** The most elements of one array a nest may reduce into: beyond it the nest is not an array reduction. */
    public static final int MAX_ELEMENTS = 32;

    private ArrayReductions() {
    }

    /** The method with its array reductions rewritten, and one report line per array rewritten. */
    public record Result(MethodBody body, List<String> notes) {
    }

    /** Rewrites every top-level loop nest of {@code m}, with floating-point sums only where a clause allows them. */
    public static Result rewrite(MethodBody m) {
        return rewrite(m, false);
    }

    /**
     * Rewrites every top-level loop nest of {@code m}; {@code relaxed} ({@code @Kernels(relaxed = true)}) allows
     * floating-point sums into elements in every nest.
     */
    public static Result rewrite(MethodBody m, boolean relaxed) {
        List<Stmt> body = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        boolean changed = false;
        for (Stmt s : m.body()) {
            if (s instanceof Stmt.For f) {
                Stmt.For g = rewrite(f, notes, relaxed);
                changed |= g != f;
                body.add(g);
            } else {
                body.add(s);
            }
        }
        if (!changed) {
            return new Result(m, notes);
        }
        return new Result(new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(),
                body), notes);
    }

    /** One update {@code c[k] = c[k] op e}: the store, the operator, the value {@code e} to combine with. */
    private record Update(Stmt.Store store, Reduction.Op op, Expr operand) {
    }

    /** The nest {@code top} with its array reductions rewritten (the same object when it has none). */
    static Stmt.For rewrite(Stmt.For top, List<String> notes, boolean relaxed) {
        java.util.Set<String> named = new java.util.HashSet<>();
        Map<ArrayRef, List<Stmt.Store>> stores = new LinkedHashMap<>();
        collectStores(top.body(), stores);
        Map<Integer, Stmt> replace = new java.util.HashMap<>(); // by the store's access id
        for (Map.Entry<ArrayRef, List<Stmt.Store>> e : stores.entrySet()) {
            ArrayRef c = e.getKey();
            List<Update> updates = new ArrayList<>();
            long elements = 1;
            boolean all = true;
            for (Stmt.Store st : e.getValue()) {
                Update u = update(st);
                long range = u == null ? -1 : range(st.index(), top, st);
                if (u == null || range < 0) {
                    all = false;
                    break;
                }
                updates.add(u);
                elements = Math.max(elements, range);
            }
            if (!all || !oneOperatorPerElement(updates) || loads(List.of(top), c) != updates.size()) {
                continue;
            }
            Update first = updates.get(0);
            String what = c.name() + "[" + first.store().index() + "] " + first.op().symbol()
                    + (first.op().symbol().length() == 1 ? "=" : "") + " ... (line " + first.store().line() + ")";
            if (elements > MAX_ELEMENTS) {
                throw new Unsupported(first.store().line(), "a reduction into up to " + elements + " elements of "
                        + c.name() + " (" + what + "): an array reduction may cover at most " + MAX_ELEMENTS
                        + " elements (for a histogram, use Acc.atomicAdd)");
            }
            boolean integer = c.elem() == Elem.INT || c.elem() == Elem.LONG;
            boolean floating = c.elem() == Elem.FLOAT || c.elem() == Elem.DOUBLE;
            boolean clause = names(List.of(top), c.name());
            boolean sums = floating && (relaxed || clause);
            boolean fits = updates.stream().allMatch(u -> atomic(u.op()) != null
                    && (integer || floating && (u.op() == Reduction.Op.MAX || u.op() == Reduction.Op.MIN
                    || sums && u.op() == Reduction.Op.ADD)));
            if (!fits) {
                throw new Unsupported(first.store().line(), "a reduction into elements of the " + c.elem().javaName()
                        + " array " + c.name() + " (" + what + "): array reductions are supported with + - max min & |"
                        + " ^ on int and long elements and with Math.max and Math.min on float and double elements"
                        + (floating ? ", and with + and - on float and double elements where @Loop(reduction = \"+:"
                        + c.name() + "\") on a loop of the nest or @Kernels(relaxed = true) allows the sum's order"
                        + " to vary (a floating-point sum into a local, such as s += x, is a reduction)" : ""));
            }
            if (clause) {
                named.add(c.name());
            }
            boolean floatSum = floating && updates.stream().anyMatch(u -> u.op() == Reduction.Op.ADD);
            for (Update u : updates) {
                Stmt.Store st = u.store();
                replace.put(st.access(), new Stmt.Atomic(atomic(u.op()), c, null, st.index(), List.of(u.operand()), null, st.line()));
            }
            notes.add("line " + first.store().line() + ": reduction(" + updates.stream().map(u -> u.op().symbol())
                    .distinct().collect(java.util.stream.Collectors.joining(" ")) + ":" + c.name() + "[...]) into "
                    + (elements == 1 && updates.stream().map(u -> u.store().index()).distinct().count() == 1
                    ? "one element" : "at most " + elements * updates.size() + " elements") + " of " + c.name()
                    + (floatSum ? ": each update is an atomic add on the element, in the order the device's threads"
                    + " reach it (" + (clause ? "the reduction clause" : "relaxed = true") + " allows it): each"
                    + " element's sum of n terms lies within (n - 1) * ulp(1) / 2 * (the sum of their magnitudes) of the"
                    + " exact sum, and may differ from Java's and from run to run in its last bits"
                    : ": each update is atomic on the element, so the result is Java's in any order"));
        }
        if (replace.isEmpty()) {
            return top;
        }
        Stmt.For rewritten = (Stmt.For) replaceAll(List.of(top), replace).get(0);
        return named.isEmpty() ? rewritten : (Stmt.For) withoutClauses(List.of(rewritten), named).get(0);
    }

    /**
     * Whether a loop of {@code stmts} has a {@code reduction} clause naming the array {@code c} ({@code +:c}, or an
     * array section {@code +:c[0:n]} as OpenACC writes it).
     */
    private static boolean names(List<Stmt> stmts, String c) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                for (String item : f.spec().reductionItems()) {
                    if (arrayOf(item).equals(c)) {
                        return true;
                    }
                }
                if (names(f.body(), c)) {
                    return true;
                }
            } else if (s instanceof Stmt.If i) {
                if (names(i.then(), c) || names(i.otherwise(), c)) {
                    return true;
                }
            } else if (s instanceof Stmt.While w && names(w.body(), c)) {
                return true;
            }
        }
        return false;
    }

    /** The variable a clause item names: {@code c} of {@code +:c} and of {@code +:c[0:n]}. */
    private static String arrayOf(String item) {
        int colon = item.indexOf(':');
        String name = colon < 0 ? item : item.substring(colon + 1).trim();
        int bracket = name.indexOf('[');
        return (bracket < 0 ? name : name.substring(0, bracket)).trim();
    }

    /** The statements with the clause items naming {@code arrays} taken off their loops (the atomics do their work). */
    private static List<Stmt> withoutClauses(List<Stmt> stmts, java.util.Set<String> arrays) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                LoopSpec sp = f.spec();
                String kept = sp.reductionItems().stream().filter(item -> !arrays.contains(arrayOf(item)))
                        .collect(java.util.stream.Collectors.joining(", "));
                LoopSpec spec = kept.equals(sp.reduction()) ? sp : new LoopSpec(sp.gang(), sp.worker(), sp.vector(),
                        sp.seq(), sp.independent(), sp.collapse(), kept, sp.annotated(), sp.atomicIncrements());
                out.add(new Stmt.For(f.index(), f.lower(), f.cond(), f.bound(), f.step(), spec,
                        withoutClauses(f.body(), arrays), f.line(), f.stride()));
            } else if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(i.cond(), withoutClauses(i.then(), arrays), withoutClauses(i.otherwise(), arrays),
                        i.line()));
            } else if (s instanceof Stmt.While w) {
                out.add(new Stmt.While(w.cond(), withoutClauses(w.body(), arrays), w.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** The atomic operation of a reduction operator, or null (a product has none). */
    private static AtomicOp atomic(Reduction.Op op) {
        return switch (op) {
            case ADD -> AtomicOp.ADD;
            case MAX -> AtomicOp.MAX;
            case MIN -> AtomicOp.MIN;
            case AND -> AtomicOp.AND;
            case OR -> AtomicOp.OR;
            case XOR -> AtomicOp.XOR;
            case MUL -> null;
        };
    }

    /**
     * Whether no element is updated with two operators (whose mixture would depend on the updates' order): one
     * operator for the array, or constant subscripts each updated with one operator.
     */
    private static boolean oneOperatorPerElement(List<Update> updates) {
        if (updates.stream().map(Update::op).distinct().count() == 1) {
            return true;
        }
        Map<Long, Reduction.Op> ops = new java.util.HashMap<>();
        for (Update u : updates) {
            if (!(u.store().index() instanceof Expr.Const k)) {
                return false;
            }
            if (ops.computeIfAbsent(k.bits(), x -> u.op()) != u.op()) {
                return false;
            }
        }
        return true;
    }

    /** {@code st} as an update {@code c[k] = c[k] op e} of a 1D array, or null. */
    private static Update update(Stmt.Store st) {
        if (st.row() != null) {
            return null;
        }
        Expr self = new Expr.Load(st.array(), st.index());
        Expr v = st.value();
        if (v instanceof Expr.Binary b) {
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
            if (b.left().equals(self) && free(b.right(), st.array())) {
                Expr e = b.op() == org.acc4j.compiler.ir.BinOp.SUB ? new Expr.Unary(UnOp.NEG, b.right()) : b.right();
                return new Update(st, op, e);
            }
            if (b.op() != org.acc4j.compiler.ir.BinOp.SUB && b.right().equals(self) && free(b.left(), st.array())) {
                return new Update(st, op, b.left());
            }
            return null;
        }
        if (v instanceof Expr.Call c && (c.fn() == MathFn.MAX || c.fn() == MathFn.MIN)) {
            Reduction.Op op = c.fn() == MathFn.MAX ? Reduction.Op.MAX : Reduction.Op.MIN;
            Expr a = c.args().get(0);
            Expr b = c.args().get(1);
            if (a.equals(self) && free(b, st.array())) {
                return new Update(st, op, b);
            }
            if (b.equals(self) && free(a, st.array())) {
                return new Update(st, op, a);
            }
        }
        return null;
    }

    private static boolean free(Expr e, ArrayRef c) {
        return !Exprs.any(e, x -> x instanceof Expr.Load l && l.array().equals(c)
                || x instanceof Expr.Length n && n.array().equals(c));
    }

    /**
     * How many values the subscript {@code k} of {@code st} can take: 1 for a constant, the product of the trip
     * counts of the loops whose indices it reads when each is a loop inside {@code top} around {@code st} with
     * constant bounds and step, and it reads nothing else; -1 when it is not such a subscript.
     */
    private static long range(Expr k, Stmt.For top, Stmt.Store st) {
        if (k.type() != org.acc4j.compiler.ir.Type.I32 || Exprs.readsMemory(k)) {
            return -1;
        }
        List<Stmt.For> around = new ArrayList<>();
        if (!enclosing(top.body(), st, around)) {
            return -1;
        }
        List<Var> used = new ArrayList<>();
        boolean[] other = {false};
        Exprs.any(k, x -> {
            if (x instanceof Expr.Local l) {
                if (!used.contains(l.var())) {
                    used.add(l.var());
                }
            } else if (!(x instanceof Expr.Const || x instanceof Expr.Binary b && (b.op() == org.acc4j.compiler.ir.BinOp.ADD
                    || b.op() == org.acc4j.compiler.ir.BinOp.SUB || b.op() == org.acc4j.compiler.ir.BinOp.MUL))) {
                other[0] = true;
            }
            return false;
        });
        if (other[0]) {
            return -1;
        }
        long n = 1;
        for (Var v : used) {
            Stmt.For loop = around.stream().filter(f -> f.index().equals(v)).findFirst().orElse(null);
            long trip = loop == null ? -1 : trip(loop);
            if (trip < 0 || assignedIn(loop.body(), v)) {
                return -1;
            }
            n *= Math.max(trip, 1);
            if (n > Integer.MAX_VALUE) {
                return n;
            }
        }
        return n;
    }

    private static boolean assignedIn(List<Stmt> stmts, Var v) {
        java.util.Set<Var> a = new java.util.HashSet<>();
        Dataflow.assigned(stmts, a);
        return a.contains(v);
    }

    /** The trip count of a loop with constant bounds and step, or -1. */
    private static long trip(Stmt.For f) {
        if (f.stride() != null || !(f.lower() instanceof Expr.Const lo) || !(f.bound() instanceof Expr.Const hi)
                || f.step() <= 0) {
            return -1;
        }
        long a = (int) lo.bits();
        long b = (int) hi.bits();
        long span = switch (f.cond()) {
            case LT -> b - a;
            case LE -> b - a + 1;
            case GT -> a - b;
            case GE -> a - b + 1;
            default -> Long.MIN_VALUE;
        };
        if (span == Long.MIN_VALUE) {
            return -1;
        }
        return span <= 0 ? 0 : (span + f.step() - 1) / f.step();
    }

    /** Whether {@code st} is in {@code stmts}; the loops around it there go to {@code out}, outermost first. */
    private static boolean enclosing(List<Stmt> stmts, Stmt st, List<Stmt.For> out) {
        for (Stmt s : stmts) {
            if (s == st) {
                return true;
            }
            if (s instanceof Stmt.For f) {
                out.add(f);
                if (enclosing(f.body(), st, out)) {
                    return true;
                }
                out.remove(out.size() - 1);
            } else if (s instanceof Stmt.If i) {
                if (enclosing(i.then(), st, out) || enclosing(i.otherwise(), st, out)) {
                    return true;
                }
            } else if (s instanceof Stmt.While w) {
                // a while loop's trip count is not known: its index, if any, is not a loop's
                if (enclosing(w.body(), st, new ArrayList<>())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void collectStores(List<Stmt> stmts, Map<ArrayRef, List<Stmt.Store>> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                out.computeIfAbsent(st.array(), k -> new ArrayList<>()).add(st);
            } else if (s instanceof Stmt.For f) {
                collectStores(f.body(), out);
            } else if (s instanceof Stmt.If i) {
                collectStores(i.then(), out);
                collectStores(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                collectStores(w.body(), out);
            }
        }
    }

    /** How many times {@code stmts} read {@code c} (an element or its length); an atomic access counts twice. */
    private static int loads(List<Stmt> stmts, ArrayRef c) {
        int n = Dataflow.expressions(stmts).stream().mapToInt(x -> count(x, c)).sum();
        return n + atomics(stmts, c);
    }

    private static int atomics(List<Stmt> stmts, ArrayRef c) {
        int n = 0;
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Atomic a && a.array().equals(c)) {
                n += 2;
            } else if (s instanceof Stmt.For f) {
                n += atomics(f.body(), c);
            } else if (s instanceof Stmt.If i) {
                n += atomics(i.then(), c) + atomics(i.otherwise(), c);
            } else if (s instanceof Stmt.While w) {
                n += atomics(w.body(), c);
            }
        }
        return n;
    }

    private static int count(Expr e, ArrayRef c) {
        int[] n = {0};
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Load l && l.array().equals(c) || x instanceof Expr.Length l2 && l2.array().equals(c)) {
                n[0]++;
            }
        });
        return n[0];
    }

    private static List<Stmt> replaceAll(List<Stmt> stmts, Map<Integer, Stmt> replace) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && replace.containsKey(st.access())) {
                out.add(replace.get(st.access()));
            } else if (s instanceof Stmt.For f) {
                out.add(f.withBody(replaceAll(f.body(), replace)));
            } else if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(i.cond(), replaceAll(i.then(), replace), replaceAll(i.otherwise(), replace), i.line()));
            } else if (s instanceof Stmt.While w) {
                out.add(new Stmt.While(w.cond(), replaceAll(w.body(), replace), w.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }
}
