package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Folds the copy of a local that javac leaves on the operand stack across a conditional expression back into the
 * assignment that consumes it. For {@code count += c ? 1 : 0} javac loads {@code count}, branches to push 1 or 0,
 * then adds; the reader keeps the loaded value in a stack temporary, giving
 * {@code t = count; if (c) u = 1; else u = 0; count = t + u}. This pass makes that {@code count = count + u} and
 * drops {@code t = count}, so that the reduction and privatisation passes see the accumulation as it was written.
 *
 * <p>Exactly when, in one statement list: {@code t = v} at position j, with {@code t} a stack temporary
 * ({@link Accesses#stackTemp}) and {@code v} another local; the statement at some k > j assigns {@code v} a value
 * that reads {@code t} once; no statement between them mentions {@code t} or assigns {@code v}, at any depth; and
 * after k the first statement of the list that mentions {@code t}, if any, is an assignment of {@code t} at the
 * list's own level whose value does not read it. Then {@code t} holds {@code v}'s value at k, and nothing reads the
 * copy afterwards (javac's stack slots are consumed once, at the join the temporary was made for).
 */
public final class StackCopies {
    private StackCopies() {
    }

    /** {@code m} with every such copy folded; {@code m} itself when there is none. */
    public static MethodBody fold(MethodBody m) {
        List<Stmt> body = fold(m.body());
        return body == m.body() ? m
                : new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(), body);
    }

    private static List<Stmt> fold(List<Stmt> stmts) {
        List<Stmt> out = new ArrayList<>(stmts.size());
        boolean changed = false;
        for (Stmt s : stmts) {
            Stmt t = nested(s);
            changed |= t != s;
            out.add(t);
        }
        for (int j = 0; j < out.size(); j++) {
            if (out.get(j) instanceof Stmt.Assign copy && Accesses.stackTemp(copy.var())
                    && copy.value() instanceof Expr.Local l && !Accesses.stackTemp(l.var())) {
                int k = consumer(out, j, copy.var(), l.var());
                if (k > 0) {
                    Stmt.Assign a = (Stmt.Assign) out.get(k);
                    out.set(k, new Stmt.Assign(a.var(), replace(a.value(), copy.var(), l), a.line()));
                    out.remove(j);
                    j--;
                    changed = true;
                }
            }
        }
        return changed ? List.copyOf(out) : stmts;
    }

    /** The position of the assignment of {@code v} that consumes {@code t}, copied from it at {@code j}; or -1. */
    private static int consumer(List<Stmt> out, int j, Var t, Var v) {
        for (int k = j + 1; k < out.size(); k++) {
            Stmt s = out.get(k);
            if (s instanceof Stmt.Assign a && a.var().equals(v) && reads(a.value(), t) == 1) {
                return readAfter(out, k, t) ? -1 : k;
            }
            if (mentions(List.of(s), t) || assigns(s, v)) {
                return -1;
            }
        }
        return -1;
    }

    /** Whether a statement after {@code k} may read {@code t} before the list assigns it afresh. */
    private static boolean readAfter(List<Stmt> out, int k, Var t) {
        for (int i = k + 1; i < out.size(); i++) {
            Stmt s = out.get(i);
            if (!mentions(List.of(s), t)) {
                continue;
            }
            return !(s instanceof Stmt.Assign a && a.var().equals(t) && reads(a.value(), t) == 0);
        }
        return false;
    }

    private static Stmt nested(Stmt s) {
        if (s instanceof Stmt.If i) {
            List<Stmt> then = fold(i.then());
            List<Stmt> otherwise = fold(i.otherwise());
            return then == i.then() && otherwise == i.otherwise() ? s : new Stmt.If(i.cond(), then, otherwise, i.line());
        }
        if (s instanceof Stmt.For f) {
            List<Stmt> body = fold(f.body());
            return body == f.body() ? s : new Stmt.For(f.index(), f.lower(), f.cond(), f.bound(), f.step(), f.spec(),
                    body, f.line(), f.stride());
        }
        if (s instanceof Stmt.While w) {
            List<Stmt> body = fold(w.body());
            return body == w.body() ? s : new Stmt.While(w.cond(), body, w.line());
        }
        return s;
    }

    private static boolean assigns(Stmt s, Var v) {
        java.util.Set<Var> set = new java.util.HashSet<>();
        Dataflow.assigned(List.of(s), set);
        return set.contains(v);
    }

    /** Whether {@code stmts} read or assign {@code t} anywhere. */
    private static boolean mentions(List<Stmt> stmts, Var t) {
        if (assigns(stmts.get(0), t)) {
            return true;
        }
        for (Expr e : Dataflow.expressions(stmts)) {
            if (Exprs.mentions(e, t)) {
                return true;
            }
        }
        return false;
    }

    private static int reads(Expr e, Var t) {
        if (e instanceof Expr.Local l) {
            return l.var().equals(t) ? 1 : 0;
        }
        int n = 0;
        for (Expr c : Exprs.children(e)) {
            n += reads(c, t);
        }
        return n;
    }

    /** {@code e} with the one read of {@code t} replaced by {@code by}. */
    private static Expr replace(Expr e, Var t, Expr by) {
        return e instanceof Expr.Local l && l.var().equals(t) ? by : Exprs.map(e, c -> replace(c, t, by));
    }
}
