package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * {@code @Loop(increments = ATOMIC)}: in such a loop (and the loops inside it), each read-modify-write
 * {@code a[x] = a[x] + v} or {@code a[x] = a[x] - v} of an {@code int}, {@code long}, {@code float} or
 * {@code double} element whose subscript {@code x} is read from memory (an index array: {@code res[c1[e]] += f},
 * {@code bins[data[i]]++}, directly or through a local the body sets) becomes an atomic add of {@code v} (of
 * {@code -v} for a subtraction, which is the same operation in IEEE and in wrapping integers). Atomic adds do not
 * race with each other, so the dependence test then finds the loop parallel when nothing else is shared. Other
 * writes are left as they are, and the dependence test judges them as before.
 *
 * <p>Runs before {@link Parallelism}; reports one line per rewritten store. Without the element nothing changes:
 * a loop with an indirect increment stays on the host with the dependence test's reason.
 */
public final class Increments {
    private Increments() {
    }

    /** The regions with the marked loops' indirect increments made atomic; {@code notes} gets one line per store. */
    public static List<Region> apply(List<Region> regions, List<String> notes) {
        List<Region> out = new ArrayList<>();
        for (Region r : regions) {
            Stmt.For loop = (Stmt.For) rewrite(r.loop(), false, new HashMap<>(), notes);
            out.add(loop == r.loop() ? r : new Region(r.ordinal(), r.prologue(), loop, r.why(), r.mapping(), r.checks(),
                    r.notes(), r.reductions(), r.hostVars()));
        }
        return out;
    }

    private static List<Stmt> rewrite(List<Stmt> stmts, boolean atomic, Map<Var, Expr> defs, List<String> notes) {
        List<Stmt> out = new ArrayList<>();
        boolean changed = false;
        for (Stmt s : stmts) {
            Stmt t = rewrite(s, atomic, defs, notes);
            changed |= t != s;
            out.add(t);
        }
        return changed ? out : stmts;
    }

    private static Stmt rewrite(Stmt s, boolean atomic, Map<Var, Expr> defs, List<String> notes) {
        if (s instanceof Stmt.Assign a) {
            defs.put(a.var(), a.value());
            return s;
        }
        if (s instanceof Stmt.For f) {
            boolean inner = atomic || f.spec().atomicIncrements();
            List<Stmt> body = rewrite(f.body(), inner, new HashMap<>(defs), notes);
            return body == f.body() ? f : f.withBody(body);
        }
        if (s instanceof Stmt.If i) {
            List<Stmt> then = rewrite(i.then(), atomic, new HashMap<>(defs), notes);
            List<Stmt> otherwise = rewrite(i.otherwise(), atomic, new HashMap<>(defs), notes);
            return then == i.then() && otherwise == i.otherwise() ? i : new Stmt.If(i.cond(), then, otherwise, i.line());
        }
        if (s instanceof Stmt.While w) {
            List<Stmt> body = rewrite(w.body(), atomic, new HashMap<>(defs), notes);
            return body == w.body() ? w : new Stmt.While(w.cond(), body, w.line());
        }
        if (!atomic || !(s instanceof Stmt.Store st) || !(st.value() instanceof Expr.Binary b)
                || (b.op() != BinOp.ADD && b.op() != BinOp.SUB)) {
            return s;
        }
        Elem e = st.array().elem();
        if (e != Elem.INT && e != Elem.LONG && e != Elem.FLOAT && e != Elem.DOUBLE) {
            return s;
        }
        Expr old = new Expr.Load(st.array(), st.row(), st.index());
        Expr v;
        if (b.left().equals(old)) {
            v = b.op() == BinOp.ADD ? b.right() : new Expr.Unary(UnOp.NEG, b.right());
        } else if (b.op() == BinOp.ADD && b.right().equals(old)) {
            v = b.left();
        } else {
            return s;
        }
        if (!readsMemory(st.index(), defs, 0) && (st.row() == null || !readsMemory(st.row(), defs, 0))) {
            return s;
        }
        notes.add("line " + st.line() + ": " + st.array().name() + "[...] " + (b.op() == BinOp.ADD ? "+=" : "-=")
                + " at a subscript read from memory becomes an atomic add (@Loop(increments = ATOMIC))"
                + (st.array().element().isFloat() ? "; the sums come out in the device's order" : ""));
        return new Stmt.Atomic(AtomicOp.ADD, st.array(), st.row(), st.index(), List.of(v), null, st.line());
    }

    /** Whether {@code e} loads from an array, directly or through the locals the body set before it. */
    private static boolean readsMemory(Expr e, Map<Var, Expr> defs, int depth) {
        boolean[] found = {false};
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Load) {
                found[0] = true;
            } else if (x instanceof Expr.Local l && depth < 8 && defs.containsKey(l.var())
                    && readsMemory(defs.get(l.var()), defs, depth + 1)) {
                found[0] = true;
            }
        });
        return found[0];
    }
}
