package org.acc4j.compiler.ir;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the IR's invariants after a phase: operand types agree as each node's documentation says, conditions are
 * predicates, loop bounds have the index's type, every local read is a parameter or assigned somewhere in the method,
 * {@code break} appears only inside a loop, and every load and store has an access id that names that access alone
 * (where an id stands twice, both places hold the same access: one node shared, or a copy). A violation is a compiler bug, never a user error: it names the phase
 * and the node. The compiler runs it after each phase when {@link #ENABLED} (the tests turn it on).
 */
public final class Verifier {
    /** Whether {@link #check} runs: the system property {@code acc4j.verifyIr}. */
    public static final boolean ENABLED = Boolean.getBoolean("acc4j.verifyIr");

    private final Set<Var> defined = new HashSet<>();
    private final List<String> problems = new ArrayList<>();
    private final java.util.Map<Integer, Object> accesses = new java.util.HashMap<>();

    /** A verifier for IR of {@code m}: its scalar parameters and every local the body assigns count as defined. */
    private Verifier(MethodBody m) {
        for (MethodBody.Param p : m.params()) {
            Type t = Type.ofDescriptor(p.descriptor());
            if (t != null) {
                defined.add(new Var(p.slot(), t, p.name()));
            }
        }
        defineAll(m.body());
    }

    /** Thrown for IR that breaks an invariant. */
    public static final class Broken extends IllegalStateException {
        public Broken(String message) {
            super(message);
        }
    }

    /** The problems of {@code m} after {@code phase}; empty when it is well formed. */
    public static List<String> problems(String phase, MethodBody m) {
        Verifier v = new Verifier(m);
        v.stmts(m.body(), 0);
        return v.problems;
    }

    /** The problems of a region after {@code phase}, in the method it came from. */
    public static List<String> problems(String phase, MethodBody m, Region r) {
        Verifier v = new Verifier(m);
        v.defineAll(r.prologue());
        v.defineAll(List.of(r.loop()));
        v.stmts(r.prologue(), 0);
        v.stmts(List.of(r.loop()), 0);
        if (r.mapping() != null) {
            Set<Var> indices = new HashSet<>();
            collectIndices(List.of(r.loop()), indices);
            for (Mapping.Level l : r.mapping().levels()) {
                for (Stmt.For f : l.loops()) {
                    if (!indices.contains(f.index())) {
                        v.problem("the mapping's level over " + f.index() + " is not a loop of the nest");
                    }
                }
            }
        }
        for (Reduction red : r.reductions()) {
            if (!v.defined.contains(red.var())) {
                v.problem("reduction variable " + red.var() + " is never assigned");
            }
        }
        return v.problems;
    }

    /** Throws {@link Broken} naming every problem of {@code m} after {@code phase}, when {@link #ENABLED}. */
    public static void check(String phase, MethodBody m) {
        if (ENABLED) {
            fail(phase, m, problems(phase, m));
        }
    }

    /** Throws {@link Broken} naming every problem of the regions after {@code phase}, when {@link #ENABLED}. */
    public static void check(String phase, MethodBody m, List<Region> regions) {
        if (ENABLED) {
            List<String> all = new ArrayList<>();
            for (Region r : regions) {
                all.addAll(problems(phase, m, r));
            }
            fail(phase, m, all);
        }
    }

    private static void fail(String phase, MethodBody m, List<String> problems) {
        if (!problems.isEmpty()) {
            throw new Broken("IR of " + m.displayName() + " after " + phase + " is malformed: "
                    + String.join("; ", problems));
        }
    }

    private static void collectIndices(List<Stmt> stmts, Set<Var> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                out.add(f.index());
                collectIndices(f.body(), out);
            } else if (s instanceof Stmt.If i) {
                collectIndices(i.then(), out);
                collectIndices(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                collectIndices(w.body(), out);
            }
        }
    }

    private void defineAll(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                defined.add(a.var());
            } else if (s instanceof Stmt.Atomic at && at.result() != null) {
                defined.add(at.result());
            } else if (s instanceof Stmt.For f) {
                defined.add(f.index());
                if (f.stride() != null) {
                    defined.add(f.stride().var());
                }
                defineAll(f.body());
            } else if (s instanceof Stmt.If i) {
                defineAll(i.then());
                defineAll(i.otherwise());
            } else if (s instanceof Stmt.While w) {
                defineAll(w.body());
            }
        }
    }

    private void problem(String what) {
        problems.add(what);
    }

    private void stmts(List<Stmt> stmts, int loops) {
        for (Stmt s : stmts) {
            stmt(s, loops);
        }
    }

    private void stmt(Stmt s, int loops) {
        String at = " (line " + s.line() + ")";
        if (s instanceof Stmt.Assign a) {
            expr(a.value());
            if (a.value().type() != a.var().type()) {
                problem(a.var() + " (" + a.var().type() + ") is assigned a " + a.value().type() + at);
            }
        } else if (s instanceof Stmt.Store st) {
            identity(st, st.access(), at);
            access(st.array(), st.row(), st.index(), at);
            expr(st.value());
            if (st.value().type() != st.array().element()) {
                problem("a " + st.value().type() + " is stored into " + st.array().name() + ", whose elements compute as "
                        + st.array().element() + at);
            }
        } else if (s instanceof Stmt.Atomic x) {
            access(x.array(), x.row(), x.index(), at);
            x.operands().forEach(this::expr);
            Type result = x.op() == AtomicOp.CAS ? Type.I32 : x.array().element();
            if (x.result() != null && x.result().type() != result) {
                problem("atomic result " + x.result() + " has type " + x.result().type() + at);
            }
        } else if (s instanceof Stmt.If i) {
            predicate(i.cond(), "if", at);
            stmts(i.then(), loops);
            stmts(i.otherwise(), loops);
        } else if (s instanceof Stmt.For f) {
            Type t = f.index().type();
            if (t != Type.I32 && t != Type.I64) {
                problem("loop index " + f.index() + " is a " + t + at);
            }
            expr(f.lower());
            expr(f.bound());
            if (f.lower().type() != t || f.bound().type() != t) {
                problem("loop over " + f.index() + " has bounds of type " + f.lower().type() + ", " + f.bound().type()
                        + " for an index of type " + t + at);
            }
            if (f.step() == 0) {
                problem("loop over " + f.index() + " has step 0" + at);
            }
            stmts(f.body(), loops + 1);
        } else if (s instanceof Stmt.While w) {
            predicate(w.cond(), "while", at);
            stmts(w.body(), loops + 1);
        } else if (s instanceof Stmt.Break) {
            if (loops == 0) {
                problem("break outside a loop" + at);
            }
        } else if (s instanceof Stmt.Return r) {
            if (r.value() != null) {
                expr(r.value());
            }
        }
    }

    private void access(ArrayRef array, Expr row, Expr index, String at) {
        if (row != null) {
            expr(row);
            if (row.type() != Type.I32) {
                problem("row of " + array.name() + " is a " + row.type() + at);
            }
            if (array.dims() < 2) {
                problem(array.name() + " has " + array.dims() + " dimension but is indexed by row" + at);
            }
        }
        expr(index);
        if (index.type() != Type.I32) {
            problem("index of " + array.name() + " is a " + index.type() + at);
        }
    }

    /** {@code node}'s access id is set, and any other node with it is the same access. */
    private void identity(Object node, int access, String at) {
        if (access == Expr.NO_ACCESS) {
            problem(node + " has no access id (a pattern placed in the IR)" + at);
            return;
        }
        Object before = accesses.putIfAbsent(access, node);
        if (before != null && !before.equals(node)) {
            problem("the access id " + access + " names both " + before + " and " + node + at);
        }
    }

    private void predicate(Expr e, String what, String at) {
        expr(e);
        if (e.type() != Type.PRED) {
            problem(what + " condition " + e + " is a " + e.type() + at);
        }
    }

    private void expr(Expr e) {
        if (e instanceof Expr.Local l) {
            if (!defined.contains(l.var())) {
                problem(l.var() + " (slot " + l.var().slot() + ", " + l.var().type() + ") is read but never assigned");
            }
        } else if (e instanceof Expr.Load l) {
            identity(l, l.access(), "");
            access(l.array(), l.row(), l.index(), "");
        } else if (e instanceof Expr.Length l) {
            if (l.row() != null) {
                expr(l.row());
            }
        } else if (e instanceof Expr.Call c) {
            c.args().forEach(this::expr);
            if (c.args().size() != c.fn().arity()) {
                problem(c + " has " + c.args().size() + " arguments, not " + c.fn().arity());
            }
        } else if (e instanceof Expr.Binary b) {
            expr(b.left());
            expr(b.right());
            Type l = b.left().type();
            Type r = b.right().type();
            if (b.op().isShift()) {
                if (r != Type.I32 || (l != Type.I32 && l != Type.I64)) {
                    problem("shift " + b + " of a " + l + " by a " + r);
                }
            } else if (l != r) {
                problem(b + " mixes " + l + " and " + r);
            } else if (l.isFloat() && (b.op() == BinOp.AND || b.op() == BinOp.OR || b.op() == BinOp.XOR)) {
                problem(b + " is a bitwise operation on " + l);
            }
        } else if (e instanceof Expr.Unary u) {
            expr(u.operand());
            Type t = u.operand().type();
            boolean ok = switch (u.op()) {
                case NEG -> t != Type.PRED;
                case TO_BYTE, TO_SHORT, TO_CHAR -> t == Type.I32;
                case NOT -> t == Type.PRED;
            };
            if (!ok) {
                problem(u + " applies " + u.op() + " to a " + t);
            }
        } else if (e instanceof Expr.Convert c) {
            expr(c.operand());
        } else if (e instanceof Expr.Compare c) {
            expr(c.left());
            expr(c.right());
            if (c.left().type() != c.right().type()) {
                problem(c + " compares a " + c.left().type() + " with a " + c.right().type());
            }
        } else if (e instanceof Expr.Select s) {
            predicate(s.cond(), "select", "");
            expr(s.ifTrue());
            expr(s.ifFalse());
            if (s.ifTrue().type() != s.ifFalse().type()) {
                problem(s + " selects between a " + s.ifTrue().type() + " and a " + s.ifFalse().type());
            }
        } else if (e instanceof Expr.Cmp3 c) {
            expr(c.left());
            expr(c.right());
            if (c.left().type() != c.right().type()) {
                problem(c + " compares a " + c.left().type() + " with a " + c.right().type());
            }
        }
    }
}
