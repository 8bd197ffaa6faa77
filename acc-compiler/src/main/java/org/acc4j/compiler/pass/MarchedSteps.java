package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * The forms {@link Marching} gives a 3D nest besides the marched column's body: the nest kept at one point per thread
 * on the pass's mapping, a chunk's steps with the first peeled and the later ones unrolled, and the body with its
 * loads read from registers.
 */
final class MarchedSteps {
    private MarchedSteps() {
    }

    /**
     * The 3D nest unchanged, one point per thread, on a mapping of its own: the stride-1 loop on x, the marched loop
     * (the largest stride) on z and the other on y, in blocks of {@code p}; the kernel gets a path without loops
     * back for threads whose grid covers the nest ({@link PointBlock#MAPPING}).
     */
    static Marching.Kernel points(Region region, List<Stmt.For> loops, Stmt.For fast, Stmt.For outer, PointBlock p,
                                  boolean align) {
        List<Mapping.Level> levels = new ArrayList<>();
        List<Mapping.GridDim> grid = new ArrayList<>(List.of(new Mapping.Unused(), new Mapping.Unused(),
                new Mapping.Unused()));
        String middle = "";
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For l = loops.get(q);
            int axis = l == fast ? 0 : l == outer ? 2 : 1;
            levels.add(new Mapping.Level(List.of(l), axis, axis, l == fast ? "stride 1" : l == outer
                    ? "largest stride" : "block rows"));
            grid.set(axis, new Mapping.FromTrip(q, axis == 0 ? p.x() : axis == 1 ? p.y() : p.z(),
                    axis == 0 ? Integer.MAX_VALUE : 65535, 1));
            if (axis == 1) {
                middle = l.index().name();
            }
        }
        Mapping mapping = new Mapping(levels, new int[] {p.x(), p.y(), p.z()}, grid,
                align ? PointBlock.MAPPING_ALIGNED : PointBlock.MAPPING);
        String note = "one point per thread in blocks of " + p + " threads over " + fast.index().name() + ", "
                + middle + " and " + outer.index().name() + (align ? ", x threads from the row element at "
                + fast.index().name() + "'s lower bound rounded down to a multiple of 32" : "") + ", a path without loops back for threads whose grid "
                + "covers the nest (launched when the bounds proofs hold, else the checked kernel runs)";
        List<String> notes = new ArrayList<>(region.notes());
        notes.add(note);
        Region out = new Region(region.ordinal(), region.prologue(), region.loop(), region.why(), mapping,
                region.checks(), notes, region.reductions(), region.hostVars(), region.scan());
        Set<Integer> unchecked = new HashSet<>();
        Marching.accesses(List.of(region.loop()), unchecked);
        return new Marching.Kernel(out, unchecked, note);
    }

    /**
     * Appends to {@code out} a chunk's steps with the first one peeled: {@code k} is set to {@code kc} and the first
     * step's statements run (a chunk has at least one step), then the later steps run {@code unroll} at a time, their
     * statements repeated with {@code k} set to each step's index in turn, and the last {@code (steps - 1) % unroll}
     * one at a time. The steps run once each, in Java's order, with the same statements as the loop with a test
     * for the first step; the repeated statements give the loads of several steps to the assembler's scheduler at
     * once. Returns the next free local slot.
     */
    static int steps(List<Stmt> out, Var k, Var kc, Expr end, List<Stmt> atStart, List<Stmt> rest,
                             int unroll, int next, int line) {
        Var last = new Var(next++, Type.I32, k.name() + "_end");
        out.add(new Stmt.Assign(last, end, line));
        out.add(new Stmt.Assign(k, new Expr.Local(kc), line));
        out.addAll(atStart);
        Expr second = new Expr.Binary(BinOp.ADD, new Expr.Local(kc), Expr.Const.i32(1));
        Expr from = second;
        if (unroll > 1) {
            // the later steps' count rounded down to a multiple of unroll (a power of two): end - kc - 1 >= 0
            Var whole = new Var(next++, Type.I32, k.name() + "_whole");
            Expr later = new Expr.Binary(BinOp.SUB, new Expr.Local(last), second);
            out.add(new Stmt.Assign(whole, new Expr.Binary(BinOp.ADD, second,
                    new Expr.Binary(BinOp.AND, later, Expr.Const.i32(-unroll))), line));
            Var ku = new Var(next++, Type.I32, k.name() + "_by" + unroll);
            List<Stmt> body = new ArrayList<>();
            for (int q = 0; q < unroll; q++) {
                body.add(new Stmt.Assign(k, q == 0 ? new Expr.Local(ku)
                        : new Expr.Binary(BinOp.ADD, new Expr.Local(ku), Expr.Const.i32(q)), line));
                body.addAll(rest);
            }
            out.add(new Stmt.For(ku, second, Cond.LT, new Expr.Local(whole), unroll, LoopSpec.NONE, body, line));
            from = new Expr.Local(whole);
        }
        Var kr = new Var(next++, Type.I32, k.name() + "_step");
        List<Stmt> body = new ArrayList<>();
        body.add(new Stmt.Assign(k, new Expr.Local(kr), line));
        body.addAll(rest);
        out.add(new Stmt.For(kr, from, Cond.LT, new Expr.Local(last), 1, LoopSpec.NONE, body, line));
        return next;
    }

    /** {@code s} with the loads of {@code registers} read from their registers. */
    static Stmt replace(Stmt s, Map<Expr.Load, Var> registers) {
        if (s instanceof Stmt.Store st) {
            Expr v = replace(st.value(), registers);
            return v == st.value() ? st : st.withValue(v);
        }
        Stmt.Assign a = (Stmt.Assign) s;
        Expr v = replace(a.value(), registers);
        return v == a.value() ? a : new Stmt.Assign(a.var(), v, a.line());
    }

    /** {@code e} with the loads of {@code registers} read from their registers; the same object when none is. */
    private static Expr replace(Expr e, Map<Expr.Load, Var> registers) {
        if (e instanceof Expr.Load l && registers.containsKey(l)) {
            return new Expr.Local(registers.get(l));
        }
        if (e instanceof Expr.Binary b) {
            Expr l = replace(b.left(), registers);
            Expr r = replace(b.right(), registers);
            return l == b.left() && r == b.right() ? e : new Expr.Binary(b.op(), l, r);
        }
        if (e instanceof Expr.Unary u) {
            Expr o = replace(u.operand(), registers);
            return o == u.operand() ? e : new Expr.Unary(u.op(), o);
        }
        if (e instanceof Expr.Convert c) {
            Expr o = replace(c.operand(), registers);
            return o == c.operand() ? e : new Expr.Convert(c.type(), o);
        }
        if (e instanceof Expr.Call c) {
            List<Expr> args = new ArrayList<>();
            boolean same = true;
            for (Expr a : c.args()) {
                Expr r = replace(a, registers);
                same &= r == a;
                args.add(r);
            }
            return same ? e : new Expr.Call(c.fn(), c.type(), args);
        }
        if (e instanceof Expr.Compare c) {
            Expr l = replace(c.left(), registers);
            Expr r = replace(c.right(), registers);
            return l == c.left() && r == c.right() ? e : new Expr.Compare(c.cond(), l, r, c.unordered());
        }
        if (e instanceof Expr.Select s) {
            Expr c = replace(s.cond(), registers);
            Expr t = replace(s.ifTrue(), registers);
            Expr f = replace(s.ifFalse(), registers);
            return c == s.cond() && t == s.ifTrue() && f == s.ifFalse() ? e : new Expr.Select(c, t, f);
        }
        if (e instanceof Expr.Cmp3 c) {
            Expr l = replace(c.left(), registers);
            Expr r = replace(c.right(), registers);
            return l == c.left() && r == c.right() ? e : new Expr.Cmp3(l, r, c.nanIsOne());
        }
        return e;
    }
}
