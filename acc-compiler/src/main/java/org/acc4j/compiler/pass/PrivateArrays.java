package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Arrays allocated in a loop body ({@code double[] t = new double[8];}, or {@code t.clone()} of one), which are
 * private to the iteration: each element becomes a local (a register), set to zero where the array is allocated
 * as Java's are. Loops with constant bounds inside the nest whose index subscripts such an array are unrolled
 * first (at most {@link #MAX_COPIES} copies of a body), so that every subscript is a constant.
 *
 * <p>What stays on the host, with a diagnostic naming the array: a subscript that is still not a constant (it
 * depends on a value known only at run time), a constant subscript out of bounds (Java throws
 * {@code ArrayIndexOutOfBoundsException} there, which the host run does), an atomic access, and an array
 * allocated outside the loops (shared by every iteration). An array that escapes (stored in a field or another
 * array, returned, or passed to a call that is not inlined) is refused where it escapes, as any such reference is.
 */
public final class PrivateArrays {
    /** The most copies of a loop body the unrolling may make for one loop. */
    public static final int MAX_COPIES = 64;

    /** The next access id: every load and store this pass builds is a new access, as its copies are. */
    private int nextAccess;

    private PrivateArrays(int nextAccess) {
        this.nextAccess = nextAccess;
    }

    /** The method with its private arrays replaced, and one report line per private array. */
    public record Result(MethodBody body, List<String> notes) {
    }

    /** {@code m} with every private array replaced by locals. */
    public static Result rewrite(MethodBody m) {
        if (Dataflow.expressions(m.body()).stream().noneMatch(PrivateArrays::mentionsPrivate) && !storesPrivate(m.body())) {
            return new Result(m, List.of());
        }
        List<Stmt> body = new ArrayList<>();
        PrivateArrays pass = new PrivateArrays(Dataflow.lastAccess(m.body()) + 1);
        java.util.Map<ArrayRef, Integer> seen = new java.util.LinkedHashMap<>();
        for (Stmt s : m.body()) {
            if (s instanceof Stmt.For f) {
                allocations(f.body(), seen);
                Stmt.For unrolled = pass.unrollInside(f);
                body.add(pass.scalarize(List.of(unrolled), definitions(unrolled)).get(0));
            } else {
                ArrayRef p = privateIn(List.of(s));
                if (p != null) {
                    throw new Unsupported(s.line(), "the array " + p.name() + " allocated outside the loops (only an array"
                            + " allocated in a loop body is private to the iteration)");
                }
                body.add(s);
            }
        }
        List<String> notes = new ArrayList<>();
        seen.forEach((a, line) -> notes.add("line " + line + ": " + a.name() + " = new " + a.elem().javaName() + "["
                + ((ArrayRef.Private) a.source()).length() + "] is private to each iteration: its elements are"
                + " scalars of the thread (registers)"));
        return new Result(new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(),
                body), notes);
    }

    /** The private arrays {@code stmts} store to, with the line of the first store (their allocation's). */
    private static void allocations(List<Stmt> stmts, java.util.Map<ArrayRef, Integer> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && isPrivate(st.array())) {
                out.putIfAbsent(st.array(), st.line());
            } else if (s instanceof Stmt.For f) {
                allocations(f.body(), out);
            } else if (s instanceof Stmt.While w) {
                allocations(w.body(), out);
            } else if (s instanceof Stmt.If i) {
                allocations(i.then(), out);
                allocations(i.otherwise(), out);
            }
        }
    }

    private static boolean isPrivate(ArrayRef a) {
        return a.source() instanceof ArrayRef.Private;
    }

    private static boolean mentionsPrivate(Expr e) {
        return Exprs.any(e, x -> x instanceof Expr.Load l && isPrivate(l.array())
                || x instanceof Expr.Length n && isPrivate(n.array()));
    }

    private static boolean storesPrivate(List<Stmt> stmts) {
        return privateIn(stmts) != null;
    }

    /** The first private array {@code stmts} access, or null. */
    private static ArrayRef privateIn(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && isPrivate(st.array()) || s instanceof Stmt.Atomic at && isPrivate(at.array())) {
                return s instanceof Stmt.Store st ? st.array() : ((Stmt.Atomic) s).array();
            }
            List<Stmt> inner = s instanceof Stmt.For f ? f.body() : s instanceof Stmt.While w ? w.body() : null;
            ArrayRef found = inner == null ? null : privateIn(inner);
            if (found == null && s instanceof Stmt.If i) {
                found = privateIn(i.then());
                found = found != null ? found : privateIn(i.otherwise());
            }
            if (found != null) {
                return found;
            }
            for (Expr e : Dataflow.expressions(shallow(s))) {
                ArrayRef[] hit = {null};
                Exprs.any(e, x -> {
                    if (x instanceof Expr.Load l && isPrivate(l.array())) {
                        hit[0] = l.array();
                    } else if (x instanceof Expr.Length n && isPrivate(n.array())) {
                        hit[0] = n.array();
                    }
                    return hit[0] != null;
                });
                if (hit[0] != null) {
                    return hit[0];
                }
            }
        }
        return null;
    }

    /** {@code s} without its nested statements, for its own expressions. */
    private static List<Stmt> shallow(Stmt s) {
        if (s instanceof Stmt.For f) {
            return List.of(f.withBody(List.of()));
        }
        if (s instanceof Stmt.While w) {
            return List.of(new Stmt.While(w.cond(), List.of(), w.line()));
        }
        if (s instanceof Stmt.If i) {
            return List.of(new Stmt.If(i.cond(), List.of(), List.of(), i.line()));
        }
        return List.of(s);
    }

    // ------------------------------------------------------------------ unrolling

    /**
     * {@code f} with the loops in its body unrolled, outermost first, where a private array's subscript inside them
     * is not yet a constant (a private array's length first becomes its constant).
     */
    private Stmt.For unrollInside(Stmt.For f) {
        List<Stmt> body = mapStmts(f.body(), e -> e instanceof Expr.Length n && isPrivate(n.array())
                ? Expr.Const.i32(((ArrayRef.Private) n.array().source()).length()) : e);
        return f.withBody(unroll(body));
    }

    private List<Stmt> unroll(List<Stmt> stmts) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                List<Stmt> copies = variableSubscript(f.body()) ? copies(f) : null;
                if (copies != null) {
                    out.addAll(unroll(copies));
                } else {
                    out.add(f.withBody(unroll(f.body())));
                }
            } else if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(i.cond(), unroll(i.then()), unroll(i.otherwise()), i.line()));
            } else if (s instanceof Stmt.While w) {
                out.add(new Stmt.While(w.cond(), unroll(w.body()), w.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** Whether a private array's subscript in {@code stmts} is not a constant. */
    private static boolean variableSubscript(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && isPrivate(st.array()) && !(st.index() instanceof Expr.Const)) {
                return true;
            }
            if (s instanceof Stmt.For f && variableSubscript(f.body())
                    || s instanceof Stmt.While w && variableSubscript(w.body())
                    || s instanceof Stmt.If i && (variableSubscript(i.then()) || variableSubscript(i.otherwise()))) {
                return true;
            }
        }
        for (Expr e : Dataflow.expressions(stmts)) {
            if (Exprs.any(e, x -> x instanceof Expr.Load l && isPrivate(l.array()) && !(l.index() instanceof Expr.Const))) {
                return true;
            }
        }
        return false;
    }

    /** The copies of {@code f}'s body, one per iteration with the index a constant, or null if it cannot be unrolled. */
    private List<Stmt> copies(Stmt.For f) {
        if (f.stride() != null || f.index().type() != Type.I32 || !(f.lower() instanceof Expr.Const lo)
                || !(f.bound() instanceof Expr.Const hi) || f.step() <= 0 || f.step() > Integer.MAX_VALUE) {
            return null;
        }
        java.util.Set<Var> assigned = new java.util.HashSet<>();
        Dataflow.assigned(f.body(), assigned);
        if (assigned.contains(f.index()) || breaks(f.body())) {
            return null;
        }
        List<Integer> values = new ArrayList<>();
        long step = f.step();
        boolean down = f.cond() == org.acc4j.compiler.ir.Cond.GT || f.cond() == org.acc4j.compiler.ir.Cond.GE;
        for (long k = (int) lo.bits(); ; k += down ? -step : step) {
            long b = (int) hi.bits();
            boolean go = switch (f.cond()) {
                case LT -> k < b;
                case LE -> k <= b;
                case GT -> k > b;
                case GE -> k >= b;
                default -> false;
            };
            if (!go || k < Integer.MIN_VALUE || k > Integer.MAX_VALUE) {
                break;
            }
            values.add((int) k);
            if (values.size() > MAX_COPIES) {
                return null;
            }
        }
        List<Stmt> out = new ArrayList<>();
        for (int k : values) {
            Expr c = Expr.Const.i32(k);
            out.addAll(mapStmts(f.body(), e -> e instanceof Expr.Local l && l.var().equals(f.index()) ? c : e));
        }
        return out;
    }

    private static boolean breaks(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Break || s instanceof Stmt.Return
                    || s instanceof Stmt.If i && (breaks(i.then()) || breaks(i.otherwise()))
                    || s instanceof Stmt.For f && breaks(f.body())) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ scalar replacement

    /**
     * The locals the nest {@code f} assigns exactly once and never reads before that assignment (javac's stack
     * temporaries among them), with their values: every read of one sees that value.
     */
    private static java.util.Map<Var, Expr> definitions(Stmt.For f) {
        java.util.Set<Var> once = Dataflow.assignedOnce(List.of(f));
        java.util.Set<Var> live = new java.util.HashSet<>();
        Dataflow.liveIn(List.of(f), live);
        Dataflow.liveIn(f.body(), live);
        java.util.Map<Var, Expr> out = new java.util.HashMap<>();
        collectDefinitions(f.body(), once, live, out);
        return out;
    }

    private static void collectDefinitions(List<Stmt> stmts, java.util.Set<Var> once, java.util.Set<Var> live,
                                           java.util.Map<Var, Expr> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && once.contains(a.var()) && !live.contains(a.var())) {
                out.put(a.var(), a.value());
            } else if (s instanceof Stmt.For f) {
                collectDefinitions(f.body(), once, live, out);
            } else if (s instanceof Stmt.While w) {
                collectDefinitions(w.body(), once, live, out);
            } else if (s instanceof Stmt.If i) {
                collectDefinitions(i.then(), once, live, out);
                collectDefinitions(i.otherwise(), once, live, out);
            }
        }
    }

    /**
     * {@code stmts} with their private arrays' elements as locals; {@code known} holds values of locals that hold
     * at the start of {@code stmts} (for the subscripts' ranges), and grows with each assignment in the list that
     * no later statement of the list has undone.
     */
    private List<Stmt> scalarize(List<Stmt> stmts, java.util.Map<Var, Expr> known) {
        List<Stmt> out = new ArrayList<>();
        java.util.Map<Var, Expr> flow = new java.util.HashMap<>(known);
        for (Stmt s : stmts) {
            java.util.Map<Var, Expr> defs = new java.util.HashMap<>(flow);
            java.util.Set<Var> assigned = new java.util.HashSet<>();
            Dataflow.assigned(List.of(s), assigned);
            for (Var v : assigned) {
                forget(flow, v);
            }
            if (s instanceof Stmt.Assign a && !Exprs.mentions(a.value(), a.var())) {
                flow.put(a.var(), a.value());
            }
            java.util.Map<Var, Expr> inside = new java.util.HashMap<>(defs);
            if (s instanceof Stmt.For || s instanceof Stmt.While) {
                // a loop's body runs again after its own assignments
                for (Var v : assigned) {
                    forget(inside, v);
                }
            }
            int at = s.line();
            Function<Expr, Expr> elements = e -> element(e, at, defs);
            if (s instanceof Stmt.Store st && isPrivate(st.array()) && !(st.index() instanceof Expr.Const)
                    && inBounds(st.array(), st.index(), defs) != null) {
                // a subscript known only at run time, within bounds: the one element it names takes the value
                ArrayRef.Private p = (ArrayRef.Private) st.array().source();
                Var index = new Var(p.base() + org.acc4j.compiler.frontend.MethodReader.MAX_PRIVATE, Type.I32,
                        p.name() + "_index");
                Var value = new Var(p.base() + org.acc4j.compiler.frontend.MethodReader.MAX_PRIVATE + 1,
                        st.array().element(), p.name() + "_value");
                out.add(new Stmt.Assign(index, map(st.index(), elements), at));
                out.add(new Stmt.Assign(value, map(st.value(), elements), at));
                int[] range = inBounds(st.array(), st.index(), defs);
                for (int k = range[0]; k <= range[1]; k++) {
                    out.add(new Stmt.If(new Expr.Compare(org.acc4j.compiler.ir.Cond.EQ, new Expr.Local(index),
                            Expr.Const.i32(k), false), List.of(new Stmt.Assign(var(st.array(), Expr.Const.i32(k), at),
                            new Expr.Local(value), at)), List.of(), at));
                }
            } else if (s instanceof Stmt.Store st && isPrivate(st.array())) {
                out.add(new Stmt.Assign(var(st.array(), st.index(), at), map(st.value(), elements), at));
            } else if (s instanceof Stmt.Atomic a && isPrivate(a.array())) {
                throw new Unsupported(at, "Acc." + a.op().routine() + " on the private array " + a.array().name()
                        + " (an array allocated in the loop body is not shared: update it plainly)");
            } else if (s instanceof Stmt.For f) {
                out.add(new Stmt.For(f.index(), map(f.lower(), elements), f.cond(), map(f.bound(), elements), f.step(),
                        f.spec(), scalarize(f.body(), inside), at, f.stride()));
            } else if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(map(i.cond(), elements), scalarize(i.then(), defs), scalarize(i.otherwise(), defs), at));
            } else if (s instanceof Stmt.While w) {
                out.add(new Stmt.While(map(w.cond(), elements), scalarize(w.body(), inside), at));
            } else {
                out.addAll(mapStmts(List.of(s), elements));
            }
        }
        return out;
    }

    /** Forgets what {@code known} says of {@code v} and of every value that reads {@code v}. */
    private static void forget(java.util.Map<Var, Expr> known, Var v) {
        known.remove(v);
        known.entrySet().removeIf(e -> Exprs.mentions(e.getValue(), v));
    }

    /** A load or length of a private array as its local or constant; any other expression as it is. */
    private static Expr element(Expr e, int line, java.util.Map<Var, Expr> defs) {
        if (e instanceof Expr.Load l && isPrivate(l.array()) && !(l.index() instanceof Expr.Const)
                && inBounds(l.array(), l.index(), defs) != null) {
            // a subscript known only at run time, within bounds: a choice among the elements it may name
            int[] range = inBounds(l.array(), l.index(), defs);
            Expr chosen = new Expr.Local(var(l.array(), Expr.Const.i32(range[1]), line));
            for (int k = range[1] - 1; k >= range[0]; k--) {
                chosen = new Expr.Select(new Expr.Compare(org.acc4j.compiler.ir.Cond.EQ, l.index(), Expr.Const.i32(k),
                        false), new Expr.Local(var(l.array(), Expr.Const.i32(k), line)), chosen);
            }
            return chosen;
        }
        if (e instanceof Expr.Load l && isPrivate(l.array())) {
            return new Expr.Local(var(l.array(), l.index(), line));
        }
        if (e instanceof Expr.Length n && isPrivate(n.array())) {
            return Expr.Const.i32(((ArrayRef.Private) n.array().source()).length());
        }
        return e;
    }

    /** The local holding element {@code index} of the private array {@code a}, which must be a constant in bounds. */
    private static Var var(ArrayRef a, Expr index, int line) {
        ArrayRef.Private p = (ArrayRef.Private) a.source();
        if (!(index instanceof Expr.Const k)) {
            throw new Unsupported(line, "the private array " + p.name() + " indexed by " + index + ", which is not known"
                    + " at compile time and not provably within its bounds (a private array's subscripts must be"
                    + " constants, indices of loops with constant bounds (at most " + MAX_COPIES + " iterations) inside"
                    + " the parallel loop, or values masked into its range such as x & 7)");
        }
        int i = (int) k.bits();
        if (i < 0 || i >= p.length()) {
            throw new Unsupported(line, "the private array " + p.name() + " indexed by " + i + ", out of bounds for"
                    + " length " + p.length() + " (Java throws ArrayIndexOutOfBoundsException there)");
        }
        return new Var(p.base() + i, a.element(), p.name() + "[" + i + "]");
    }

    /**
     * The values {@code index} can take, {lowest, highest}, when they are provably within the private array's
     * bounds; else null (then the subscript keeps the nest on the host).
     */
    private static int[] inBounds(ArrayRef a, Expr index, java.util.Map<Var, Expr> defs) {
        long[] r = range(index, defs, new java.util.HashSet<>());
        int length = ((ArrayRef.Private) a.source()).length();
        return r != null && r[0] >= 0 && r[1] < length ? new int[] {(int) r[0], (int) r[1]} : null;
    }

    /**
     * An interval holding every value of the {@code int} expression {@code e}, or null: constants, a mask with a
     * non-negative constant ({@code x & 7}), an unsigned shift by a constant, sums, differences and products of
     * such values that cannot overflow, and a local with one such definition ({@code defs}).
     */
    private static long[] range(Expr e, java.util.Map<Var, Expr> defs, java.util.Set<Var> seen) {
        if (e.type() != Type.I32) {
            return null;
        }
        if (e instanceof Expr.Const k) {
            return new long[] {(int) k.bits(), (int) k.bits()};
        }
        if (e instanceof Expr.Local l && defs.containsKey(l.var()) && seen.add(l.var())) {
            return range(defs.get(l.var()), defs, seen);
        }
        if (!(e instanceof Expr.Binary b)) {
            return null;
        }
        if (b.op() == org.acc4j.compiler.ir.BinOp.AND) {
            for (Expr side : List.of(b.left(), b.right())) {
                if (side instanceof Expr.Const k && (int) k.bits() >= 0) {
                    return new long[] {0, (int) k.bits()};
                }
            }
            return null;
        }
        if (b.op() == org.acc4j.compiler.ir.BinOp.USHR && b.right() instanceof Expr.Const k && (k.bits() & 31) != 0) {
            return new long[] {0, (1L << (32 - (k.bits() & 31))) - 1};
        }
        long[] x = range(b.left(), defs, seen);
        long[] y = range(b.right(), defs, seen);
        if (x == null || y == null) {
            return null;
        }
        long[] r = switch (b.op()) {
            case ADD -> new long[] {x[0] + y[0], x[1] + y[1]};
            case SUB -> new long[] {x[0] - y[1], x[1] - y[0]};
            case MUL -> {
                long[] p = {x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1]};
                yield new long[] {java.util.Arrays.stream(p).min().getAsLong(), java.util.Arrays.stream(p).max().getAsLong()};
            }
            default -> null;
        };
        return r == null || r[0] < Integer.MIN_VALUE || r[1] > Integer.MAX_VALUE ? null : r;
    }

    // ------------------------------------------------------------------ rewriting expressions

    /** {@code stmts} with {@code f} applied to every expression, bottom up, integer constants folded. */
    private List<Stmt> mapStmts(List<Stmt> stmts, Function<Expr, Expr> f) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                out.add(new Stmt.Assign(a.var(), map(a.value(), f), a.line()));
            } else if (s instanceof Stmt.Store st) {
                out.add(new Stmt.Store(st.array(), st.row() == null ? null : map(st.row(), f), map(st.index(), f),
                        map(st.value(), f), st.line(), nextAccess++));
            } else if (s instanceof Stmt.Atomic at) {
                out.add(new Stmt.Atomic(at.op(), at.array(), at.row() == null ? null : map(at.row(), f),
                        map(at.index(), f), at.operands().stream().map(x -> map(x, f)).toList(), at.result(), at.line()));
            } else if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(map(i.cond(), f), mapStmts(i.then(), f), mapStmts(i.otherwise(), f), i.line()));
            } else if (s instanceof Stmt.For g) {
                Stmt.Stride st = g.stride();
                if (st != null) {
                    st = new Stmt.Stride(st.var(), map(st.lower(), f), st.cond(), map(st.bound(), f), map(st.step(), f));
                }
                out.add(new Stmt.For(g.index(), map(g.lower(), f), g.cond(), map(g.bound(), f), g.step(), g.spec(),
                        mapStmts(g.body(), f), g.line(), st));
            } else if (s instanceof Stmt.While w) {
                out.add(new Stmt.While(map(w.cond(), f), mapStmts(w.body(), f), w.line()));
            } else if (s instanceof Stmt.Return r) {
                out.add(new Stmt.Return(r.value() == null ? null : map(r.value(), f), r.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private Expr map(Expr e, Function<Expr, Expr> f) {
        Expr m;
        if (e instanceof Expr.Load l) {
            m = new Expr.Load(l.array(), l.row() == null ? null : map(l.row(), f), map(l.index(), f), nextAccess++);
        } else if (e instanceof Expr.Length n) {
            m = new Expr.Length(n.array(), n.row() == null ? null : map(n.row(), f));
        } else if (e instanceof Expr.Call c) {
            m = new Expr.Call(c.fn(), c.type(), c.args().stream().map(x -> map(x, f)).toList());
        } else if (e instanceof Expr.Binary b) {
            m = fold(new Expr.Binary(b.op(), map(b.left(), f), map(b.right(), f)));
        } else if (e instanceof Expr.Unary u) {
            m = new Expr.Unary(u.op(), map(u.operand(), f));
        } else if (e instanceof Expr.Convert c) {
            m = new Expr.Convert(c.type(), map(c.operand(), f));
        } else if (e instanceof Expr.Compare c) {
            m = new Expr.Compare(c.cond(), map(c.left(), f), map(c.right(), f), c.unordered());
        } else if (e instanceof Expr.Select s) {
            m = new Expr.Select(map(s.cond(), f), map(s.ifTrue(), f), map(s.ifFalse(), f));
        } else if (e instanceof Expr.Cmp3 c) {
            m = new Expr.Cmp3(map(c.left(), f), map(c.right(), f), c.nanIsOne());
        } else {
            m = e;
        }
        return f.apply(m);
    }

    /** An {@code int} operation on two constants as its constant, with Java's semantics; else {@code b}. */
    private static Expr fold(Expr.Binary b) {
        if (!(b.left() instanceof Expr.Const l) || !(b.right() instanceof Expr.Const r) || l.type() != Type.I32
                || r.type() != Type.I32) {
            return b;
        }
        int x = (int) l.bits();
        int y = (int) r.bits();
        Integer v = switch (b.op()) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> y == 0 ? null : x / y;
            case REM -> y == 0 ? null : x % y;
            case AND -> x & y;
            case OR -> x | y;
            case XOR -> x ^ y;
            case SHL -> x << y;
            case SHR -> x >> y;
            case USHR -> x >>> y;
        };
        return v == null ? b : Expr.Const.i32(v);
    }
}
