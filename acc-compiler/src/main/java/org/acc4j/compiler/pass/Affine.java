package org.acc4j.compiler.pass;

import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/** Recognises subscripts of the form {@code c*i + rest}, with {@code rest} invariant in a loop. */
public final class Affine {
    private Affine() {
    }

    /** The coefficient of {@code i} in {@code e}, or null when {@code e} is not linear in {@code i}. */
    public static Long coefficient(Expr e, Var i) {
        if (!Exprs.mentions(e, i)) {
            return 0L;
        }
        if (e instanceof Expr.Local l) {
            return l.var().equals(i) ? 1L : 0L;
        }
        if (e instanceof Expr.Unary u && u.op() == UnOp.NEG) {
            Long c = coefficient(u.operand(), i);
            return c == null ? null : -c;
        }
        if (e instanceof Expr.Binary b) {
            Long l = coefficient(b.left(), i);
            Long r = coefficient(b.right(), i);
            if (l == null || r == null) {
                return null;
            }
            switch (b.op()) {
                case ADD:
                    return l + r;
                case SUB:
                    return l - r;
                case MUL:
                    if (b.right() instanceof Expr.Const k && r == 0) {
                        return l * constant(k);
                    }
                    if (b.left() instanceof Expr.Const k && l == 0) {
                        return r * constant(k);
                    }
                    return null;
                default:
                    return null;
            }
        }
        return null;
    }

    /** Whether {@code e} reads no array and no variable of {@code variant} other than {@code i}. */
    public static boolean restInvariant(Expr e, Var i, Set<Var> variant) {
        return !Exprs.any(e, x -> x instanceof Expr.Load
                || (x instanceof Expr.Local l && !l.var().equals(i) && variant.contains(l.var())));
    }

    /** The offset {@code rest} when {@code e} is exactly {@code i + rest} or {@code i - k} (else null). */
    public static Expr offsetOfUnit(Expr e, Var i) {
        if (e instanceof Expr.Local l && l.var().equals(i)) {
            return l.type() == Type.I64 ? Expr.Const.i64(0) : Expr.Const.i32(0);
        }
        if (e instanceof Expr.Binary b && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
            if (b.left() instanceof Expr.Local l && l.var().equals(i) && !Exprs.mentions(b.right(), i)) {
                return b.op() == BinOp.ADD ? b.right() : new Expr.Unary(UnOp.NEG, b.right());
            }
            if (b.op() == BinOp.ADD && b.right() instanceof Expr.Local l && l.var().equals(i)
                    && !Exprs.mentions(b.left(), i)) {
                return b.left();
            }
        }
        return null;
    }

    private static long constant(Expr.Const k) {
        return k.type() == Type.I32 ? (int) k.bits() : k.type() == Type.I64 ? k.bits() : Long.MIN_VALUE;
    }
}
