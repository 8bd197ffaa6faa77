package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
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
    /**
     * Steps per pass of a two-dimensional nest's chunk by default (0: the loop as {@link Marching} writes it;
     * {@link #WHOLE}: a whole chunk's later steps in one pass).
     */
    public static final int DEFAULT_2D = -1;
    /** The value of {@code unroll2d=chunk} ({@link #DEFAULT_2D}): every later step of a whole chunk in one pass. */
    public static final int WHOLE = -1;
    /** The setting's key: a two-dimensional nest's columns hold the rows between their loads too (on/off). */
    public static final String GAPS = "gaps2d";
    /** Whether a two-dimensional nest's columns keep registers for their gaps by default. */
    public static final boolean GAPS_2D = true;
    /** The setting's key: a two-dimensional nest's loads that no step changes loaded once at the kernel's start. */
    public static final String HOIST = "hoist2d";
    /** Whether those loads move to the kernel's start by default. */
    public static final boolean HOIST_2D = true;

    private MarchSteps() {
    }

    /**
     * The unrolling the setting {@value Marching.Shape#PROPERTY} (else {@value Marching.Shape#ENV}) asks for with
     * {@code unroll2d=N} ({@code 0} or {@code off}: the loop as {@link Marching} writes it; {@code chunk}:
     * {@link #WHOLE}), else {@code otherwise}.
     */
    public static int configured(int otherwise) {
        String v = setting(KEY);
        if (v == null) {
            return otherwise;
        }
        if (v.equals("chunk")) {
            return WHOLE;
        }
        try {
            int n = v.equals("off") ? 0 : Integer.parseInt(v);
            return n >= 0 && n <= 64 ? n : otherwise;
        } catch (NumberFormatException e) {
            // an entry that cannot be read leaves the default
            return otherwise;
        }
    }

    /**
     * The steps of a two-dimensional chunk whose tallest column spans {@code rows} rows: the least power of two, and
     * at least 4, that is twice the rows a chunk's first step loads beyond the one a later step loads, so that the
     * rows loaded again by the next chunk are at most half a row per step (the Jacobi sweep, 3 rows: 4; the 5 x 5
     * blur: 8).
     */
    public static int chunkFor(int rows) {
        int c = 4;
        while (c < 2 * (rows - 1) && c < 64) {
            c *= 2;
        }
        return c;
    }

    /** The steps of the chunks of {@code marched}, a region {@link Marching} wrote; 1 when it has no chunk loop. */
    public static int chunkOf(Region marched) {
        List<Stmt.For> nest = nest(marched.loop());
        for (Stmt t : nest.get(nest.size() - 1).body()) {
            if (t instanceof Stmt.For g && chunkLoop(g)) {
                Var kc = ((Expr.Local) g.lower()).var();
                for (Stmt.For f : nest) {
                    if (f.index().equals(kc)) {
                        return (int) f.step();
                    }
                }
            }
        }
        return 1;
    }

    /** The steps per pass for a chunk of {@code chunk} steps when the setting asks for {@code by}. */
    public static int steps(int by, int chunk) {
        return by == WHOLE ? chunk - 1 : by;
    }

    /**
     * Whether a two-dimensional nest's columns keep registers for their gaps: {@code gaps2d=on} or {@code off} in the
     * setting, else {@code gaps=on} or {@code off} there ({@code gaps} given), else {@link #GAPS_2D}.
     */
    public static boolean gaps2d(boolean gaps) {
        String v = setting(GAPS);
        if (v != null) {
            return v.equals("on") || (!v.equals("off") && GAPS_2D);
        }
        String g = setting("gaps");
        return g != null ? gaps : GAPS_2D;
    }

    /** Whether the setting asks for {@code hoist2d=on} ({@code off}: no), else {@code otherwise}. */
    public static boolean hoisting(boolean otherwise) {
        String v = setting(HOIST);
        return v == null ? otherwise : v.equals("on") || (!v.equals("off") && otherwise);
    }

    /** The value of {@code key} in the marching setting, or null. */
    private static String setting(String key) {
        String r = System.getProperty(Marching.Shape.PROPERTY);
        if (r == null || r.isBlank()) {
            r = System.getenv(Marching.Shape.ENV);
        }
        if (r == null || r.isBlank()) {
            return null;
        }
        String found = null;
        for (String entry : r.split(",")) {
            String[] kv = entry.trim().split("=", 2);
            if (kv.length == 2 && kv[0].trim().equals(key)) {
                found = kv[1].trim();
            }
        }
        return found;
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
        Stmt.For loop = (Stmt.For) rewrite(r.loop(), by, chunkOf(r), next);
        if (loop == r.loop()) {
            return kernel;
        }
        return rebuilt(kernel, r.prologue(), loop, "after its first step a chunk runs " + by + " step"
                + (by == 1 ? "" : "s") + " per pass, written out");
    }

    /**
     * {@code kernel} with the loads of a chunk's first step whose subscripts nothing in the nest changes (a window's
     * weights) made once per thread at the kernel's start, when the nest has an iteration; {@code kernel} itself when
     * it has none or its region has no chunk loop of {@link Marching}'s form.
     *
     * <p>Such a load reads the element Java's every iteration reads, so it is in bounds whenever the host's proof
     * holds and the nest runs at all; its register is set at the kernel's start instead of each chunk's first step,
     * and no step writes it. Outside every loop, the assembler may load it again where it is used rather than hold it
     * in a register through the march.
     */
    public static Marching.Kernel hoist(MethodBody body, Marching.Kernel kernel) {
        Region r = kernel.region();
        Set<Var> variant = new HashSet<>();
        Dataflow.assigned(List.of(r.loop()), variant);
        Dataflow.loopIndices(List.of(r.loop()), variant);
        List<Stmt.For> nest = nest(r.loop());
        Stmt.For innermost = nest.get(nest.size() - 1);
        Stmt.For chunk = null;
        for (Stmt t : innermost.body()) {
            if (t instanceof Stmt.For g && chunkLoop(g)) {
                chunk = g;
            }
        }
        if (chunk == null) {
            return kernel;
        }
        Stmt.If step = (Stmt.If) chunk.body().get(0);
        Set<Var> later = new HashSet<>();
        Dataflow.assigned(step.otherwise(), later);
        Map<Var, Integer> sets = new HashMap<>();
        for (Stmt t : step.then()) {
            if (t instanceof Stmt.Assign a) {
                sets.merge(a.var(), 1, Integer::sum);
            }
        }
        List<Stmt> loads = new ArrayList<>();
        Set<Var> hoisted = new HashSet<>();
        List<Stmt> first = new ArrayList<>();
        for (Stmt t : step.then()) {
            if (t instanceof Stmt.Assign a && a.value() instanceof Expr.Load l && !later.contains(a.var())
                    && sets.get(a.var()) == 1 && invariant(l, variant)) {
                loads.add(t);
                hoisted.add(a.var());
            } else {
                first.add(t);
            }
        }
        if (loads.isEmpty()) {
            return kernel;
        }
        // the registers' zeroing moves with them (every other statement of the innermost body stays)
        List<Stmt> inner = new ArrayList<>();
        Stmt.For newChunk = chunk.withBody(List.of(new Stmt.If(step.cond(), first, step.otherwise(), step.line())));
        for (Stmt t : innermost.body()) {
            if (t instanceof Stmt.Assign a && hoisted.contains(a.var()) && a.value() instanceof Expr.Const) {
                continue;
            }
            inner.add(t == chunk ? newChunk : t);
        }
        Stmt.For loop = r.loop();
        Stmt.For below = innermost.withBody(inner);
        for (int q = nest.size() - 2; q >= 0; q--) {
            below = nest.get(q).withBody(List.of(below));
        }
        loop = below;
        // at the kernel's start: zero, then the loads when every loop of the nest has an iteration
        List<Stmt> prologue = new ArrayList<>(r.prologue());
        int line = chunk.line();
        for (Stmt t : loads) {
            Var v = ((Stmt.Assign) t).var();
            prologue.add(new Stmt.Assign(v, new Expr.Const(v.type(), 0), line));
        }
        List<Stmt> guarded = loads;
        for (int q = nest.size() - 1; q >= 0; q--) {
            Stmt.For f = nest.get(q);
            guarded = List.of(new Stmt.If(new Expr.Compare(f.cond(), f.lower(), f.bound(), false), guarded, List.of(),
                    line));
        }
        prologue.addAll(guarded);
        return rebuilt(kernel, prologue, loop, loads.size() + " load" + (loads.size() == 1 ? "" : "s")
                + " that no step changes made once per thread at the kernel's start");
    }

    /** Whether {@code l}'s subscripts read nothing the nest assigns. */
    private static boolean invariant(Expr.Load l, Set<Var> variant) {
        for (Expr e : l.row() == null ? List.of(l.index()) : List.of(l.row(), l.index())) {
            if (Exprs.any(e, x -> x instanceof Expr.Local v && variant.contains(v.var()) || x instanceof Expr.Load)) {
                return false;
            }
        }
        return true;
    }

    /** The loops of the nest from {@code loop} down through single-loop bodies. */
    private static List<Stmt.For> nest(Stmt.For loop) {
        List<Stmt.For> nest = new ArrayList<>();
        for (Stmt.For f = loop; ; ) {
            nest.add(f);
            if (f.body().size() == 1 && f.body().get(0) instanceof Stmt.For g) {
                f = g;
            } else {
                return nest;
            }
        }
    }

    /** {@code kernel}'s region with {@code prologue} and {@code loop}, its mapping's levels on the new loops. */
    private static Marching.Kernel rebuilt(Marching.Kernel kernel, List<Stmt> prologue, Stmt.For loop, String what) {
        Region r = kernel.region();
        List<Stmt.For> nest = nest(loop);
        List<Mapping.Level> old = r.mapping().levels();
        List<Mapping.Level> levels = new ArrayList<>();
        for (int q = 0; q < old.size(); q++) {
            Mapping.Level l = old.get(q);
            levels.add(new Mapping.Level(List.of(nest.get(q)), l.gridAxis(), l.blockAxis(), l.why()));
        }
        Mapping m = r.mapping();
        Mapping mapping = new Mapping(levels, m.block(), m.grid(), m.name());
        String note = kernel.note().endsWith(")")
                ? kernel.note().substring(0, kernel.note().length() - 1) + "; " + what + ")" : kernel.note();
        List<String> notes = new ArrayList<>(r.notes());
        if (!notes.isEmpty() && notes.get(notes.size() - 1).equals(kernel.note())) {
            notes.set(notes.size() - 1, note);
        }
        Region out = new Region(r.ordinal(), prologue, loop, r.why(), mapping, r.checks(), notes, r.reductions(),
                r.hostVars(), r.scan());
        return new Marching.Kernel(out, kernel.unchecked(), note);
    }

    /** {@code s} with its chunk loop rewritten; the same object when it has none. */
    private static Stmt rewrite(Stmt s, int by, int chunk, int[] next) {
        if (!(s instanceof Stmt.For f)) {
            return s;
        }
        List<Stmt> body = new ArrayList<>();
        boolean changed = false;
        for (Stmt t : f.body()) {
            if (t instanceof Stmt.For g && chunkLoop(g)) {
                body.addAll(steps(g, by, chunk, next));
                changed = true;
            } else {
                Stmt u = rewrite(t, by, chunk, next);
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
    private static List<Stmt> steps(Stmt.For g, int by, int chunk, int[] next) {
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
            // a whole chunk's later steps are one pass, a shorter chunk's none (no division); else a power of two
            // rounds down with a mask
            Expr rounded = by == chunk - 1
                    ? new Expr.Select(new Expr.Compare(Cond.EQ, later, Expr.Const.i32(by), false), Expr.Const.i32(by),
                            Expr.Const.i32(0))
                    : Integer.bitCount(by) == 1 ? new Expr.Binary(BinOp.AND, later, Expr.Const.i32(-by))
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
