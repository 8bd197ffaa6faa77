package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.MathFn;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Searches that keep the index they found, as pivot searches are written (SciMark's LU, LINPACK's {@code idamax}):
 * a top-level loop whose body computes a value into locals and then
 * <pre>
 *   if (v &gt; m) { m = v; k = i; }        // or &gt;=, &lt;, &lt;=; the two assignments in either order
 * </pre>
 * with {@code i} the loop's index and nothing else written, becomes two loops and host code:
 * <pre>
 *   m0 = m;
 *   for (i ...) { ...; if (v &gt; m) m = v; }                      // a max (min) reduction
 *   kk = Long.MAX_VALUE;                                          // Long.MIN_VALUE for &gt;= and &lt;=
 *   for (i ...) { ...; if (v == m) kk = Math.min(kk, (long) i); }  // the least (greatest) index reaching it
 *   k = m &gt; m0 ? (int) kk : k;                                   // kk != Long.MIN_VALUE for &gt;= and &lt;=
 * </pre>
 * which is Java's result: the strict comparison keeps the first of the indices reaching the extreme, and moves
 * {@code k} only when a value passes {@code m}'s value before the loop; {@code >=} keeps the last and moves it when any
 * value reaches it. NaN values never compare, as in Java, and a NaN {@code m} is never replaced. Both loops may then
 * run in parallel: the first is a reduction the existing forms take, the second an integer reduction, both exact.
 */
public final class Searches {
    private Searches() {
    }

    /** The method with its searches rewritten, and a line for the report per search. */
    public record Result(MethodBody body, List<String> notes) {
    }

    public static Result rewrite(MethodBody m) {
        List<Stmt> out = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        int[] fresh = {0};
        boolean changed = false;
        for (Stmt s : m.body()) {
            List<Stmt> r = s instanceof Stmt.For f && f.index().type() == Type.I32 ? search(f, fresh, notes) : null;
            if (r == null) {
                out.add(s);
            } else {
                out.addAll(r);
                changed = true;
            }
        }
        MethodBody body = changed ? new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(),
                m.params(), out) : m;
        return new Result(body, List.copyOf(notes));
    }

    /** The rewritten statements for a search loop {@code f}, or null when {@code f} is not one. */
    private static List<Stmt> search(Stmt.For f, int[] fresh, List<String> notes) {
        List<Stmt> body = f.body();
        if (body.isEmpty() || !(body.get(body.size() - 1) instanceof Stmt.If last)) {
            return null;
        }
        List<Stmt> prelude = body.subList(0, body.size() - 1);
        for (Stmt s : prelude) {
            if (!(s instanceof Stmt.Assign)) {
                return null;
            }
        }
        List<Stmt> taken;
        Expr.Compare cond;
        if (last.cond() instanceof Expr.Compare c && last.otherwise().isEmpty()) {
            cond = c;
            taken = last.then();
        } else if (last.cond() instanceof Expr.Compare c && last.then().isEmpty()) {
            cond = c.negate();
            taken = last.otherwise();
        } else {
            return null;
        }
        if (taken.size() != 2 || !(taken.get(0) instanceof Stmt.Assign a0) || !(taken.get(1) instanceof Stmt.Assign a1)) {
            return null;
        }
        Stmt.Assign setIndex = a0.value() instanceof Expr.Local l && l.var().equals(f.index()) ? a0 : a1;
        Stmt.Assign setValue = setIndex == a0 ? a1 : a0;
        if (!(setIndex.value() instanceof Expr.Local il) || !il.var().equals(f.index())
                || setIndex.var().type() != Type.I32) {
            return null;
        }
        Var m = setValue.var();
        Var k = setIndex.var();
        if (m.equals(k) || m.equals(f.index()) || k.equals(f.index())) {
            return null;
        }
        // the comparison as (value cmp m)
        Cond op = cond.cond();
        Expr value;
        if (cond.right() instanceof Expr.Local r && r.var().equals(m)) {
            value = cond.left();
        } else if (cond.left() instanceof Expr.Local l && l.var().equals(m)) {
            value = cond.right();
            op = op.swap();
        } else {
            return null;
        }
        boolean max = op == Cond.GT || op == Cond.GE;
        boolean strict = op == Cond.GT || op == Cond.LT;
        if (op == Cond.EQ || op == Cond.NE || !value.equals(setValue.value()) || value.type() != m.type()
                || cond.unordered() && value.type().isFloat()) {
            return null;
        }
        // the value reads neither m nor k, and the prelude sets neither (nor the index)
        if (mentions(value, m) || mentions(value, k)) {
            return null;
        }
        for (Stmt s : prelude) {
            Stmt.Assign a = (Stmt.Assign) s;
            if (a.var().equals(m) || a.var().equals(k) || a.var().equals(f.index()) || mentions(a.value(), m)
                    || mentions(a.value(), k)) {
                return null;
            }
        }
        Stmt.For reduced = f.withBody(withLast(prelude, new Stmt.If(cond, List.of(setValue), List.of(), last.line())));
        if (Reductions.find(reduced).stream().noneMatch(r -> r.var().equals(m))) {
            // the extreme itself would not be a reduction (a float value that may be -0.0): the loop stays as it is
            return null;
        }
        int n = fresh[0]++;
        Var before = new Var(f.index().slot() + 3_000_000 + 4 * n, m.type(), m.name() + "_before");
        Var found = new Var(f.index().slot() + 3_000_001 + 4 * n, Type.I64, k.name() + "_found");
        List<Stmt> second = new ArrayList<>(prelude);
        Expr index = new Expr.Convert(Type.I64, new Expr.Local(f.index()));
        Expr extreme = new Expr.Call(strict ? MathFn.MIN : MathFn.MAX, Type.I64, List.of(new Expr.Local(found), index));
        second.add(new Stmt.If(new Expr.Compare(Cond.EQ, value, new Expr.Local(m), false),
                List.of(new Stmt.Assign(found, extreme, last.line())), List.of(), last.line()));
        Expr moved = strict
                ? new Expr.Compare(max ? Cond.GT : Cond.LT, new Expr.Local(m), new Expr.Local(before), false)
                : new Expr.Compare(Cond.NE, new Expr.Local(found), Expr.Const.i64(Long.MIN_VALUE), false);
        List<Stmt> out = new ArrayList<>();
        out.add(new Stmt.Assign(before, new Expr.Local(m), f.line()));
        out.add(reduced);
        out.add(new Stmt.Assign(found, Expr.Const.i64(strict ? Long.MAX_VALUE : Long.MIN_VALUE), f.line()));
        out.add(f.withBody(second));
        // k keeps its value where the loop would not move it: the host needs that value (a launch site's input)
        out.add(new Stmt.Assign(k, new Expr.Select(moved, new Expr.Convert(Type.I32, new Expr.Local(found)),
                new Expr.Local(k)), last.line()));
        notes.add("line " + f.line() + ": a search for the " + (strict ? "first" : "last") + " index of the "
                + (max ? "greatest" : "least") + " " + m.name() + " (" + k.name() + " = " + f.index().name()
                + "): a " + (max ? "max" : "min") + " reduction, then a second loop for the "
                + (strict ? "least" : "greatest") + " index reaching it");
        return out;
    }

    private static List<Stmt> withLast(List<Stmt> prelude, Stmt last) {
        List<Stmt> out = new ArrayList<>(prelude);
        out.add(last);
        return out;
    }

    private static boolean mentions(Expr e, Var v) {
        return Exprs.any(e, x -> x instanceof Expr.Local l && l.var().equals(v));
    }
}
