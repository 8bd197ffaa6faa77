package org.acc4j.compiler.pass;

import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/** Recognises unit-stride subscripts {@code i + rest}, with {@code rest} invariant in a loop (for coverage). */
public final class Affine {
    private Affine() {
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
}
