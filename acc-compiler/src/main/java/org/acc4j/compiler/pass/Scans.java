package org.acc4j.compiler.pass;

import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Scan;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Finds loops that are prefix scans: a loop over {@code i} by steps of 1 with a {@code <} test, no {@code @Loop}
 * clause, whose body is exactly {@code s = s op a[i]; b[i] = s;} (inclusive) or {@code b[i] = s; s = s op a[i];}
 * (exclusive), where {@code op} is {@code +}, {@code *}, {@code Math.min}, {@code Math.max}, or for {@code int} and
 * {@code long} {@code &}, {@code |}, {@code ^}, and {@code s}, {@code a} and {@code b} are all {@code int}, {@code
 * long}, {@code float} or {@code double}. Such a loop carries {@code s} from one iteration to the next, so the
 * dependence test refuses it; a scan runs it in one pass on the device instead.
 *
 * <p>Integer scans and {@code min}/{@code max} scans give Java's result bit for bit in any grouping. A float sum or
 * product is regrouped, so it is not Java's result: it runs as a scan only when the method allows it ({@code
 * @Kernels(relaxed = true)}); otherwise {@link #find} refuses it, saying so.
 */
public final class Scans {
    private Scans() {
    }

    /**
     * The scan {@code top} is, or null when it is not one.
     *
     * @param relaxed whether float sums and products may be regrouped
     * @throws Unsupported for a float sum or product scan without {@code relaxed}, naming the scan
     */
    public static Scan find(Stmt.For top, boolean relaxed) {
        if (top.spec().annotated() && (top.spec().hasParallelLevel() || top.spec().seq() || top.spec().independent()
                || top.spec().collapse() > 1) || top.step() != 1 || top.stride() != null
                || top.cond() != org.acc4j.compiler.ir.Cond.LT || top.body().size() != 2
                || top.index().type() != org.acc4j.compiler.ir.Type.I32) {
            return null;
        }
        Stmt first = top.body().get(0);
        Stmt second = top.body().get(1);
        boolean inclusive = first instanceof Stmt.Assign;
        Stmt.Assign update = (Stmt.Assign) (inclusive ? first : second instanceof Stmt.Assign ? second : null);
        Stmt.Store store = (inclusive ? second : first) instanceof Stmt.Store st ? st : null;
        if (update == null || store == null) {
            return null;
        }
        Var s = update.var();
        Expr index = new Expr.Local(top.index());
        if (!fullWidth(store.array().elem()) || store.array().dims() != 1 || store.row() != null
                || !store.index().equals(index) || !store.value().equals(new Expr.Local(s))
                || store.array().element() != s.type()) {
            return null;
        }
        Reduction.Op op = Reductions.accumulation(update.value(), s);
        if (op == null || update.value() instanceof Expr.Binary b && b.op() == BinOp.SUB) {
            return null;
        }
        Expr.Load input = operand(update.value(), s);
        if (input == null || !fullWidth(input.array().elem()) || input.array().dims() != 1 || input.row() != null
                || !input.index().equals(index) || input.array().element() != s.type()) {
            return null;
        }
        if (s.type().isFloat() && op.ordinal() >= Reduction.Op.AND.ordinal()) {
            return null;
        }
        Scan scan = new Scan(s, op, inclusive, input, store, update.line());
        if (s.type().isFloat() && (op == Reduction.Op.ADD || op == Reduction.Op.MUL) && !relaxed) {
            throw new Unsupported(top.line(), scan + " of " + (s.type() == org.acc4j.compiler.ir.Type.F32 ? "float" : "double")
                    + " values: a parallel scan regroups the " + (op == Reduction.Op.ADD ? "sums" : "products")
                    + ", which changes their rounding from Java's left-to-right loop; @Kernels(relaxed = true) allows"
                    + " it, @Loop(seq = true) runs the loop on one device thread in Java's order");
        }
        return scan;
    }

    private static boolean fullWidth(Elem e) {
        return e == Elem.INT || e == Elem.LONG || e == Elem.FLOAT || e == Elem.DOUBLE;
    }

    /** The operand of {@code s op x} (or {@code x op s}, {@code Math.max(s, x)} ...) that is not {@code s}, if a load. */
    private static Expr.Load operand(Expr value, Var s) {
        Expr self = new Expr.Local(s);
        List<Expr> both;
        if (value instanceof Expr.Binary b) {
            both = List.of(b.left(), b.right());
        } else if (value instanceof Expr.Call c && c.args().size() == 2) {
            both = c.args();
        } else {
            return null;
        }
        Expr other = both.get(0).equals(self) ? both.get(1) : both.get(0);
        return other instanceof Expr.Load l ? l : null;
    }
}
