package org.acc4j.compiler.ir;

import java.util.List;
import java.util.function.Predicate;

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
