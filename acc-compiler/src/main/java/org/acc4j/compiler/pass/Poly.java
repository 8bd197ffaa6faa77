package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * A polynomial over {@code int} with wrapping coefficients: monomials are sorted lists of atoms (loop indices
 * and invariant expressions). Two equal polynomials have equal values for every assignment of the atoms, as
 * Java's {@code int} arithmetic is a ring modulo 2^32.
 */
final class Poly {
    private final Map<List<Expr>, Integer> terms;

    private Poly(Map<List<Expr>, Integer> terms) {
        this.terms = terms;
        terms.values().removeIf(c -> c == 0);
    }

    static Poly constant(int c) {
        Map<List<Expr>, Integer> t = new LinkedHashMap<>();
        t.put(List.of(), c);
        return new Poly(t);
    }

    static Poly atom(Expr a) {
        Map<List<Expr>, Integer> t = new LinkedHashMap<>();
        t.put(List.of(a), 1);
        return new Poly(t);
    }

    Poly plus(Poly o) {
        Map<List<Expr>, Integer> t = new LinkedHashMap<>(terms);
        o.terms.forEach((m, c) -> t.merge(m, c, Integer::sum));
        return new Poly(t);
    }

    Poly times(int k) {
        Map<List<Expr>, Integer> t = new LinkedHashMap<>();
        terms.forEach((m, c) -> t.put(m, c * k));
        return new Poly(t);
    }

    Poly minus(Poly o) {
        return plus(o.times(-1));
    }

    Poly times(Poly o) {
        Map<List<Expr>, Integer> t = new LinkedHashMap<>();
        terms.forEach((m1, c1) -> o.terms.forEach((m2, c2) -> {
            List<Expr> m = new ArrayList<>(m1);
            m.addAll(m2);
            m.sort(java.util.Comparator.comparing(Object::toString));
            t.merge(List.copyOf(m), c1 * c2, Integer::sum);
        }));
        return new Poly(t);
    }

    boolean isZero() {
        return terms.isEmpty();
    }

    /** The polynomial as an {@code int} expression (its atoms multiplied, times the coefficients, summed). */
    Expr toExpr() {
        Expr sum = null;
        for (Map.Entry<List<Expr>, Integer> t : terms.entrySet()) {
            Expr term = Expr.Const.i32(t.getValue());
            for (Expr atom : t.getKey()) {
                term = term instanceof Expr.Const c && c.bits() == 1 ? atom : new Expr.Binary(BinOp.MUL, term, atom);
            }
            sum = sum == null ? term : new Expr.Binary(BinOp.ADD, sum, term);
        }
        return sum == null ? Expr.Const.i32(0) : sum;
    }

    boolean isOne() {
        return terms.size() == 1 && Integer.valueOf(1).equals(terms.get(List.of()));
    }

    int degree() {
        return terms.keySet().stream().mapToInt(List::size).max().orElse(0);
    }

    /** The coefficient of the atom {@code v} when the polynomial is linear in it, else null. */
    Poly coefficient(Var v) {
        Expr atom = new Expr.Local(v);
        Map<List<Expr>, Integer> t = new LinkedHashMap<>();
        for (Map.Entry<List<Expr>, Integer> e : terms.entrySet()) {
            int count = Collections.frequency(e.getKey(), atom);
            if (count > 1) {
                return null;
            }
            if (count == 1) {
                List<Expr> m = new ArrayList<>(e.getKey());
                m.remove(atom);
                t.put(List.copyOf(m), e.getValue());
            }
        }
        return new Poly(t);
    }

    /** The integer {@code d} with {@code this == d * unit}, or null. */
    Integer multipleOf(Poly unit) {
        if (isZero()) {
            return 0;
        }
        if (unit.isZero()) {
            return null;
        }
        Map.Entry<List<Expr>, Integer> lead = unit.terms.entrySet().iterator().next();
        Integer c = terms.get(lead.getKey());
        if (c == null || lead.getValue() == 0 || c % lead.getValue() != 0) {
            return null;
        }
        int d = c / lead.getValue();
        return d != 0 && Math.abs(d) <= 64 && equals(unit.times(d)) ? d : null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Poly p && p.terms.equals(terms);
    }

    @Override
    public int hashCode() {
        return terms.hashCode();
    }

    @Override
    public String toString() {
        return terms.toString();
    }

    /** Polynomials of {@code int} subscripts, with the body's locals replaced by their definitions. */
    static final class Builder {
        private final Set<Var> indices;
        private final Set<Var> variant;
        private final Map<Var, Expr> defs;

        Builder(Set<Var> indices, Set<Var> variant, Map<Var, Expr> defs) {
            this.indices = indices;
            this.variant = variant;
            this.defs = defs;
        }

        Poly of(Expr e) {
            return of(e, 0);
        }

        private Poly of(Expr e, int depth) {
            if (depth > 64 || e.type() != Type.I32) {
                return null;
            }
            if (e instanceof Expr.Const k) {
                return constant((int) k.bits());
            }
            if (e instanceof Expr.Local l) {
                if (indices.contains(l.var())) {
                    return atom(e);
                }
                Expr def = defs.get(l.var());
                if (def != null) {
                    return of(def, depth + 1);
                }
                return variant.contains(l.var()) ? null : atom(e);
            }
            if (e instanceof Expr.Binary b) {
                if (b.op() == BinOp.ADD || b.op() == BinOp.SUB || b.op() == BinOp.MUL) {
                    Poly l = of(b.left(), depth + 1);
                    Poly r = of(b.right(), depth + 1);
                    if (l == null || r == null) {
                        return null;
                    }
                    return b.op() == BinOp.ADD ? l.plus(r) : b.op() == BinOp.SUB ? l.minus(r) : l.times(r);
                }
                if (b.op() == BinOp.SHL && b.right() instanceof Expr.Const k) {
                    Poly l = of(b.left(), depth + 1);
                    return l == null ? null : l.times(1 << ((int) k.bits() & 31));
                }
            }
            if (e instanceof Expr.Unary u && u.op() == UnOp.NEG) {
                Poly p = of(u.operand(), depth + 1);
                return p == null ? null : p.times(-1);
            }
            boolean invariant = !Exprs.any(e, x -> x instanceof Expr.Load
                    || (x instanceof Expr.Local l && (variant.contains(l.var()) || defs.containsKey(l.var()))));
            return invariant ? atom(e) : null;
        }
    }
}
