package org.acc4j.compiler.pass;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * Linear forms of integer subscripts over loop indices, with coefficients that may be symbolic:
 * {@code i*n + j + 1} is {@code {i: n, j: 1} + 1}. Coefficients and the rest are expressions invariant in the
 * nest (constants, parameters, fields, lengths). A local assigned once in the nest from such a form (as in
 * {@code int row = i*n;}) is substituted by its definition.
 */
public final class Linear {
    /** {@code Σ coefficients[v] * v + rest}. */
    public record Form(Map<Var, Expr> coefficients, Expr rest) {
        /** The coefficient of {@code v}, or null when {@code v} does not appear. */
        public Expr coefficient(Var v) {
            return coefficients.get(v);
        }

        /** Whether {@code v}'s coefficient is the constant 1 or -1. */
        public boolean unit(Var v) {
            Expr c = coefficients.get(v);
            return c instanceof Expr.Const k && Math.abs(value(k)) == 1;
        }
    }

    private final Set<Var> indices;
    private final Set<Var> variant;
    private final Map<Var, Expr> defs;

    /**
     * @param indices the loop indices of the nest
     * @param variant every variable the nest assigns (indices included)
     * @param defs substitutable definitions in scope at the subscript
     */
    public Linear(Set<Var> indices, Set<Var> variant, Map<Var, Expr> defs) {
        this.indices = indices;
        this.variant = variant;
        this.defs = defs;
    }

    /** The form of {@code e}, or null when it is not linear in the indices with invariant coefficients. */
    public Form of(Expr e) {
        return form(e, 0);
    }

    private Form form(Expr e, int depth) {
        if (depth > 32 || (e.type() != Type.I32 && e.type() != Type.I64)) {
            return null;
        }
        if (e instanceof Expr.Local l) {
            Var v = l.var();
            if (indices.contains(v)) {
                Map<Var, Expr> c = new LinkedHashMap<>();
                c.put(v, one(e.type()));
                return new Form(c, zero(e.type()));
            }
            Expr def = defs.get(v);
            if (def != null) {
                return form(def, depth + 1);
            }
            return variant.contains(v) ? null : new Form(Map.of(), e);
        }
        if (e instanceof Expr.Binary b) {
            if (b.op() == BinOp.ADD || b.op() == BinOp.SUB) {
                Form l = form(b.left(), depth + 1);
                Form r = form(b.right(), depth + 1);
                if (l == null || r == null) {
                    return null;
                }
                boolean sub = b.op() == BinOp.SUB;
                Map<Var, Expr> c = new LinkedHashMap<>(l.coefficients);
                for (Map.Entry<Var, Expr> t : r.coefficients.entrySet()) {
                    Expr rc = sub ? neg(t.getValue()) : t.getValue();
                    c.merge(t.getKey(), rc, Linear::add);
                }
                c.values().removeIf(Linear::isZero);
                return new Form(c, sub ? add(l.rest, neg(r.rest)) : add(l.rest, r.rest));
            }
            if (b.op() == BinOp.MUL) {
                Form l = form(b.left(), depth + 1);
                Form r = form(b.right(), depth + 1);
                if (l == null || r == null) {
                    return null;
                }
                if (l.coefficients.isEmpty()) {
                    return scale(r, l.rest);
                }
                if (r.coefficients.isEmpty()) {
                    return scale(l, r.rest);
                }
                return null;
            }
            if (b.op() == BinOp.SHL && b.right() instanceof Expr.Const k) {
                Form l = form(b.left(), depth + 1);
                int bits = (int) value(k) & (e.type() == Type.I64 ? 63 : 31);
                return l == null ? null : scale(l, e.type() == Type.I64 ? Expr.Const.i64(1L << bits) : Expr.Const.i32(1 << bits));
            }
        }
        if (e instanceof Expr.Unary u && u.op() == UnOp.NEG) {
            Form f = form(u.operand(), depth + 1);
            return f == null ? null : scale(f, e.type() == Type.I64 ? Expr.Const.i64(-1) : Expr.Const.i32(-1));
        }
        if (invariant(e)) {
            return new Form(Map.of(), e);
        }
        return null;
    }

    private boolean invariant(Expr e) {
        return !Exprs.any(e, x -> x instanceof Expr.Load
                || (x instanceof Expr.Local l && (variant.contains(l.var()) || defs.containsKey(l.var()))));
    }

    private static Form scale(Form f, Expr k) {
        Map<Var, Expr> c = new LinkedHashMap<>();
        for (Map.Entry<Var, Expr> t : f.coefficients.entrySet()) {
            c.put(t.getKey(), mul(t.getValue(), k));
        }
        c.values().removeIf(Linear::isZero);
        return new Form(c, mul(f.rest, k));
    }

    static Expr one(Type t) {
        return t == Type.I64 ? Expr.Const.i64(1) : Expr.Const.i32(1);
    }

    static Expr zero(Type t) {
        return t == Type.I64 ? Expr.Const.i64(0) : Expr.Const.i32(0);
    }

    static long value(Expr.Const k) {
        return k.type() == Type.I32 ? (int) k.bits() : k.bits();
    }

    static boolean isZero(Expr e) {
        return e instanceof Expr.Const k && value(k) == 0;
    }

    static Expr add(Expr a, Expr b) {
        if (a instanceof Expr.Const x && b instanceof Expr.Const y) {
            return constant(a.type(), value(x) + value(y));
        }
        if (isZero(a)) {
            return b;
        }
        return isZero(b) ? a : new Expr.Binary(BinOp.ADD, a, b);
    }

    static Expr mul(Expr a, Expr b) {
        if (a instanceof Expr.Const x && b instanceof Expr.Const y) {
            return constant(a.type(), value(x) * value(y));
        }
        if (isZero(a) || isZero(b)) {
            return zero(a.type());
        }
        if (a instanceof Expr.Const x && value(x) == 1) {
            return b;
        }
        return b instanceof Expr.Const y && value(y) == 1 ? a : new Expr.Binary(BinOp.MUL, a, b);
    }

    static Expr neg(Expr a) {
        return a instanceof Expr.Const x ? constant(a.type(), -value(x)) : new Expr.Unary(UnOp.NEG, a);
    }

    private static Expr constant(Type t, long v) {
        return t == Type.I64 ? Expr.Const.i64(v) : Expr.Const.i32((int) v);
    }
}
