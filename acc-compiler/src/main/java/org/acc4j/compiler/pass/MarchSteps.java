package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * The steps of a marched chunk written out: {@link Marching} gives each thread one loop over its chunk's steps that
 * tests at every step whether it is the first ({@code for k in [kc, end): if (k == kc) first else later}). This pass
 * peels the first step and repeats the later steps' statements {@code by} times in the body of a loop over the chunk
 * ({@code k} set to each step's index in turn), with the last {@code (steps - 1) % by} steps one at a time after it.
 *
 * <p>Why: in the loop a register of the window takes the value of the one above it at every step, a move per
 * register and step, and the assembler keeps every register of the window and every weight live across the loop's
 * back edge. Written out, the window's values rotate by renaming, and the loads of several steps are in one
 * straight-line stretch for the assembler to schedule; the same scheme as a hand-written kernel that unrolls its march
 * (the 2.5D blocking of Paulius Micikevicius, <i>3D Finite Difference Computation on GPUs using CUDA</i>).
 *
 * <p>Invariants kept: each step runs once, in the order of the loop, with the statements the loop ran at that step
 * and {@code k} equal to its index, so the results and the loads are the loop's; the access ids are the loop's (a
 * repeated statement is a copy of the same access), so the host's proofs cover them as before.
 */
public final class MarchSteps {
    /** The setting's key: steps of a two-dimensional nest's chunk per pass of the loop after the first step. */
    public static final String KEY = "unroll2d";
    /** Steps per pass of a two-dimensional nest's chunk by default (0: the loop as {@link Marching} writes it). */
    public static final int DEFAULT_2D = 0;

    private MarchSteps() {
    }

    /**
     * The unrolling the setting {@value Marching.Shape#PROPERTY} (else {@value Marching.Shape#ENV}) asks for with
     * {@code unroll2d=N} ({@code 0} or {@code off}: the loop as {@link Marching} writes it), else {@code otherwise}.
     */
    public static int configured(int otherwise) {
        String r = System.getProperty(Marching.Shape.PROPERTY);
        if (r == null || r.isBlank()) {
            r = System.getenv(Marching.Shape.ENV);
        }
        if (r == null || r.isBlank()) {
            return otherwise;
        }
        int by = otherwise;
        for (String entry : r.split(",")) {
            String[] kv = entry.trim().split("=", 2);
            if (kv.length == 2 && kv[0].trim().equals(KEY)) {
                String v = kv[1].trim();
                try {
                    int n = v.equals("off") ? 0 : Integer.parseInt(v);
                    if (n >= 0 && n <= 64) {
                        by = n;
                    }
                } catch (NumberFormatException e) {
                    // an entry that cannot be read leaves the default
                }
            }
        }
        return by;
    }

    /**
     * {@code kernel} with its chunk's steps written out {@code by} at a time after the first; {@code kernel} itself
     * when {@code by} is 0 or its region has no chunk loop of {@link Marching}'s form.
     */
    public static Marching.Kernel unroll(MethodBody body, Marching.Kernel kernel, int by) {
        if (by <= 0) {
            return kernel;
        }
        Region r = kernel.region();
        int[] next = {Marching.maxSlot(body, r) + 1};
        Stmt.For loop = (Stmt.For) rewrite(r.loop(), by, next);
        if (loop == r.loop()) {
            return kernel;
        }
        // the mapping's levels name the rebuilt loops
        List<org.acc4j.compiler.ir.Mapping.Level> levels = new ArrayList<>();
        List<Stmt.For> nest = new ArrayList<>();
        for (Stmt.For f = loop; ; ) {
            nest.add(f);
            if (f.body().size() == 1 && f.body().get(0) instanceof Stmt.For g) {
                f = g;
            } else {
                break;
            }
        }
        List<org.acc4j.compiler.ir.Mapping.Level> old = r.mapping().levels();
        for (int q = 0; q < old.size(); q++) {
            org.acc4j.compiler.ir.Mapping.Level l = old.get(q);
            levels.add(new org.acc4j.compiler.ir.Mapping.Level(List.of(nest.get(q)), l.gridAxis(), l.blockAxis(), l.why()));
        }
        org.acc4j.compiler.ir.Mapping m = r.mapping();
        org.acc4j.compiler.ir.Mapping mapping = new org.acc4j.compiler.ir.Mapping(levels, m.block(), m.grid(), m.name());
        String note = kernel.note().endsWith(")")
                ? kernel.note().substring(0, kernel.note().length() - 1) + "; after its first step a chunk runs "
                + by + " step" + (by == 1 ? "" : "s") + " per pass, written out)"
                : kernel.note();
        List<String> notes = new ArrayList<>(r.notes());
        if (!notes.isEmpty() && notes.get(notes.size() - 1).equals(kernel.note())) {
            notes.set(notes.size() - 1, note);
        }
        Region out = new Region(r.ordinal(), r.prologue(), loop, r.why(), mapping, r.checks(), notes, r.reductions(),
                r.hostVars(), r.scan());
        return new Marching.Kernel(out, kernel.unchecked(), note);
    }

    /** {@code s} with its chunk loop rewritten; the same object when it has none. */
    private static Stmt rewrite(Stmt s, int by, int[] next) {
        if (!(s instanceof Stmt.For f)) {
            return s;
        }
        List<Stmt> body = new ArrayList<>();
        boolean changed = false;
        for (Stmt t : f.body()) {
            if (t instanceof Stmt.For g && chunkLoop(g)) {
                body.addAll(steps(g, by, next));
                changed = true;
            } else {
                Stmt u = rewrite(t, by, next);
                changed |= u != t;
                body.add(u);
            }
        }
        return changed ? f.withBody(body) : f;
    }

    /** Whether {@code g} is {@code for k in [kc, end) step 1: if (k == kc) first else later}. */
    private static boolean chunkLoop(Stmt.For g) {
        return g.step() == 1 && g.cond() == Cond.LT && g.stride() == null && g.lower() instanceof Expr.Local kc
                && g.body().size() == 1 && g.body().get(0) instanceof Stmt.If i && i.cond() instanceof Expr.Compare c
                && c.cond() == Cond.EQ && c.left() instanceof Expr.Local k && k.var().equals(g.index())
                && c.right() instanceof Expr.Local k0 && k0.var().equals(kc.var());
    }

    /**
     * The chunk loop {@code g} as: {@code end} kept in a local, the first step at {@code k = kc}, a loop over the
     * later steps that runs {@code by} of them per pass while whole passes remain, and a loop over the rest.
     */
    private static List<Stmt> steps(Stmt.For g, int by, int[] next) {
        Var k = g.index();
        Expr kc = g.lower();
        Stmt.If step = (Stmt.If) g.body().get(0);
        int line = g.line();
        List<Stmt> out = new ArrayList<>();
        Var last = new Var(next[0]++, Type.I32, k.name() + "_end");
        out.add(new Stmt.Assign(last, g.bound(), line));
        out.add(new Stmt.Assign(k, kc, line));
        out.addAll(step.then());
        Expr second = new Expr.Binary(BinOp.ADD, kc, Expr.Const.i32(1));
        Expr from = second;
        if (by > 1) {
            // the later steps rounded down to whole passes: end - kc - 1 >= 0 (a chunk has at least one step)
            Var whole = new Var(next[0]++, Type.I32, k.name() + "_whole");
            Expr later = new Expr.Binary(BinOp.SUB, new Expr.Local(last), second);
            Expr rounded = Integer.bitCount(by) == 1
                    ? new Expr.Binary(BinOp.AND, later, Expr.Const.i32(-by))
                    : new Expr.Binary(BinOp.MUL, new Expr.Binary(BinOp.DIV, later, Expr.Const.i32(by)),
                            Expr.Const.i32(by));
            out.add(new Stmt.Assign(whole, new Expr.Binary(BinOp.ADD, second, rounded), line));
            Var ku = new Var(next[0]++, Type.I32, k.name() + "_by" + by);
            List<Stmt> pass = new ArrayList<>();
            for (int q = 0; q < by; q++) {
                pass.add(new Stmt.Assign(k, q == 0 ? new Expr.Local(ku)
                        : new Expr.Binary(BinOp.ADD, new Expr.Local(ku), Expr.Const.i32(q)), line));
                pass.addAll(step.otherwise());
            }
            out.add(new Stmt.For(ku, second, Cond.LT, new Expr.Local(whole), by, LoopSpec.NONE, pass, line));
            from = new Expr.Local(whole);
        }
        Var kr = new Var(next[0]++, Type.I32, k.name() + "_step");
        List<Stmt> rest = new ArrayList<>();
        rest.add(new Stmt.Assign(k, new Expr.Local(kr), line));
        rest.addAll(step.otherwise());
        out.add(new Stmt.For(kr, from, Cond.LT, new Expr.Local(last), 1, LoopSpec.NONE, rest, line));
        return out;
    }
}
