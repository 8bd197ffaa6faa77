package org.acc4j.compiler.ir;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/** Walks of expression trees (Java 17 has no pattern switch, so the case analysis lives here once). */
public final class Exprs {
    private Exprs() {
    }

    /** The direct operands of {@code e}. */
    public static List<Expr> children(Expr e) {
        if (e instanceof Expr.Load l) {
            return l.row() != null ? List.of(l.row(), l.index()) : List.of(l.index());
        } else if (e instanceof Expr.Length l) {
            return l.row() != null ? List.of(l.row()) : List.of();
        } else if (e instanceof Expr.Call c) {
            return c.args();
        } else if (e instanceof Expr.Binary b) {
            return List.of(b.left(), b.right());
        } else if (e instanceof Expr.Unary u) {
            return List.of(u.operand());
        } else if (e instanceof Expr.Convert c) {
            return List.of(c.operand());
        } else if (e instanceof Expr.Compare c) {
            return List.of(c.left(), c.right());
        } else if (e instanceof Expr.Select s) {
            return List.of(s.cond(), s.ifTrue(), s.ifFalse());
        } else if (e instanceof Expr.Cmp3 c) {
            return List.of(c.left(), c.right());
        }
        return List.of();
    }

    /** {@code e} with {@code f} applied to each of its direct operands ({@link #children}); a leaf as it is. */
    public static Expr map(Expr e, UnaryOperator<Expr> f) {
        if (e instanceof Expr.Load l) {
            return new Expr.Load(l.array(), l.row() == null ? null : f.apply(l.row()), f.apply(l.index()), l.access());
        } else if (e instanceof Expr.Length l) {
            return l.row() == null ? l : new Expr.Length(l.array(), f.apply(l.row()));
        } else if (e instanceof Expr.Call c) {
            return new Expr.Call(c.fn(), c.type(), c.args().stream().map(f).toList());
        } else if (e instanceof Expr.Binary b) {
            return new Expr.Binary(b.op(), f.apply(b.left()), f.apply(b.right()));
        } else if (e instanceof Expr.Unary u) {
            return new Expr.Unary(u.op(), f.apply(u.operand()));
        } else if (e instanceof Expr.Convert c) {
            return new Expr.Convert(c.type(), f.apply(c.operand()));
        } else if (e instanceof Expr.Compare c) {
            return new Expr.Compare(c.cond(), f.apply(c.left()), f.apply(c.right()), c.unordered());
        } else if (e instanceof Expr.Select s) {
            return new Expr.Select(f.apply(s.cond()), f.apply(s.ifTrue()), f.apply(s.ifFalse()));
        } else if (e instanceof Expr.Cmp3 c) {
            return new Expr.Cmp3(f.apply(c.left()), f.apply(c.right()), c.nanIsOne());
        }
        return e;
    }

    /** Whether {@code e} or any expression inside it satisfies {@code p}. */
    public static boolean any(Expr e, Predicate<Expr> p) {
        if (p.test(e)) {
            return true;
        }
        for (Expr c : children(e)) {
            if (any(c, p)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} reads the variable {@code v}. */
    public static boolean mentions(Expr e, Var v) {
        return any(e, x -> x instanceof Expr.Local l && l.var().equals(v));
    }

    /** Whether {@code e} reads array memory. */
    public static boolean readsMemory(Expr e) {
        return any(e, x -> x instanceof Expr.Load);
    }
}
