package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.ParameterNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Reads a method's bytecode into the structured loop-nest IR.
 *
 * <p>Blocks are executed symbolically (the operand stack holds expression trees); the CFG is then rebuilt
 * as structure: a natural loop whose header compares its induction variable with a bound, with no other exit and a
 * constant step, becomes a {@link Stmt.For}; so does one whose step is invariant but not a constant, when it is the
 * outermost loop or marked parallel, normalised to a count of its iterations ({@link Stmt.Stride}); any other loop
 * with one block after it (its breaks' blocks joined to its body) becomes a {@link Stmt.While} whose exits are {@link Stmt.Break}s. A conditional branch becomes a
 * {@link Stmt.If} whose branches meet at the immediate post-dominator (inside a loop, within one iteration: an arm
 * that breaks does not stop the other from meeting the code after the if). This accepts the shapes javac emits for
 * {@code for}, {@code while}, {@code do}, {@code if}/{@code else}, {@code &&}, {@code ||}, {@code break} and
 * {@code continue}; anything else throws {@link Unsupported} naming the construct and line. Reading goes on after an
 * unsupported construct (at the next statement, after the block or after the loop) so that one exception names
 * every obstacle.
 *
 * <p>Invariant kept: an expression on the symbolic stack never reads a variable or array element that a
 * later statement of the same block writes before the expression is consumed (it is spilled first).
 */
public final class MethodReader {
    private static final Object THIS = new Object() {
        @Override
        public String toString() {
            return "this";
        }
    };

    private final ClassNode owner;
    private final MethodNode method;
    private final Cfg cfg;
    private final LoopAnnotations annotations;
    private final int[] lineAt;
    private final List<MethodBody.Param> params = new ArrayList<>();
    private final Map<Integer, ArrayRef> arraySlots = new HashMap<>();
    private final Map<Integer, Var> rowSlots = new HashMap<>();
    private final Map<Integer, ArrayRef> rowArrays = new HashMap<>();
    private final java.util.Set<Integer> thisSlots = new java.util.HashSet<>();

    /** A row {@code array[row]} of a two-dimensional array, as a value on the stack or in a local. */
    private record Row(ArrayRef array, Expr row) {
    }
    private int temps;

    private MethodReader(ClassNode owner, MethodNode method) {
        this.owner = owner;
        this.method = method;
        this.annotations = new LoopAnnotations(method);
        this.lineAt = lines(method);
        readParams();
        this.cfg = Cfg.build(owner.name, method);
    }

    /** Reads {@code method} of {@code owner}; throws {@link Unsupported} for constructs outside the subset. */
    public static MethodBody read(ClassNode owner, MethodNode method) {
        MethodReader r = new MethodReader(owner, method);
        List<Stmt> body = null;
        try {
            body = r.region(r.cfg.entry(), null, null);
        } catch (Unsupported u) {
            for (org.acc4j.compiler.Diagnostic.Obstacle o : u.obstacles()) {
                if (r.obstacles.stream().noneMatch(x -> x.line() == o.line() && x.construct().equals(o.construct()))) {
                    r.obstacles.add(new Unsupported(o.line(), o.construct()));
                }
            }
        }
        if (!r.obstacles.isEmpty()) {
            throw combined(r.obstacles);
        }
        return new MethodBody(owner.name, method.name, method.desc, r.isStatic(), owner.sourceFile, r.params, body);
    }

    private boolean isStatic() {
        return (method.access & Opcodes.ACC_STATIC) != 0;
    }

    private static int[] lines(MethodNode mn) {
        int[] lines = new int[mn.instructions.size()];
        int line = 0;
        for (int i = 0; i < lines.length; i++) {
            if (mn.instructions.get(i) instanceof LineNumberNode ln) {
                line = ln.line;
            }
            lines[i] = line;
        }
        return lines;
    }

    private void readParams() {
        org.objectweb.asm.Type[] args = org.objectweb.asm.Type.getArgumentTypes(method.desc);
        int slot = isStatic() ? 0 : 1;
        for (int i = 0; i < args.length; i++) {
            params.add(new MethodBody.Param(i, slot, paramName(i, slot), args[i].getDescriptor()));
            slot += args[i].getSize();
        }
    }

    private String paramName(int index, int slot) {
        if (method.parameters != null && index < method.parameters.size()) {
            ParameterNode p = method.parameters.get(index);
            if (p.name != null) {
                return p.name;
            }
        }
        if (method.localVariables != null) {
            for (LocalVariableNode lv : method.localVariables) {
                if (lv.index == slot && method.instructions.indexOf(lv.start) <= 1) {
                    return lv.name;
                }
            }
            for (LocalVariableNode lv : method.localVariables) {
                if (lv.index == slot) {
                    return lv.name;
                }
            }
        }
        return "arg" + index;
    }

    // ---------------------------------------------------------------- structure

    /**
     * The loop whose body is being structured, and the loops around it: its blocks (with the blocks its breaks run
     * through), the block after it, and its blocks' post-dominators within an iteration.
     */
    private record LoopCtx(Cfg.Block header, BitSet body, Cfg.Block follow, int[] ipdom, LoopCtx outer) {
    }

    /** How a block ends. */
    private record Exit(int kind, Expr jumpCond, Cfg.Block fall, Cfg.Block target) {
        static final int FALL = 0;
        static final int COND = 1;
        static final int RETURN = 2;
    }

    /** The line of the last block executed: a break is reported there. */
    private int jumpLine;

    private static final String JUMP_OUT = "a jump out of a loop (a return, or a labelled break or continue)";

    /**
     * The statements from {@code from} up to {@code stop}. Inside a loop, reaching the block after the loop is a
     * {@link Stmt.Break}; a loop's own body is {@code region(header, header, ctx, true)}.
     */
    private List<Stmt> region(Cfg.Block from, Cfg.Block stop, LoopCtx loop) {
        return region(from, stop, loop, false);
    }

    /** With {@code head}, {@code from} is the head of {@code loop} and the statements are its body. */
    private List<Stmt> region(Cfg.Block from, Cfg.Block stop, LoopCtx loop, boolean head) {
        List<Stmt> out = new ArrayList<>();
        Cfg.Block b = from;
        while (head || b != stop) {
            boolean atHead = head;
            head = false;
            if (b == null) {
                throw new Unsupported(line(from), JUMP_OUT);
            }
            if (loop != null && !loop.body.get(b.id)) {
                if (b == loop.follow) {
                    out.add(new Stmt.Break(jumpLine));
                    return out;
                }
                throw new Unsupported(jumpLine, JUMP_OUT);
            }
            if (loop != null && b == loop.header && !atHead) {
                throw new Unsupported(line(b), "a continue that the loop's structure does not allow");
            }
            if (Cfg.isLoopHeader(b) && (loop == null || loop.header != b)) {
                Cfg.Block[] exit = new Cfg.Block[1];
                try {
                    out.add(loop(b, out, loop, exit));
                } catch (Unsupported u) {
                    if (exit[0] == null) {
                        throw u;
                    }
                    note(u, b);
                }
                b = exit[0];
                continue;
            }
            List<Object> stack = new ArrayList<>();
            Exit e;
            try {
                e = execute(b, stack, out);
            } catch (Unsupported u) {
                note(u, b);
                abandon(b);
                e = skipped(b);
            }
            jumpLine = lastLine(b);
            switch (e.kind) {
                case Exit.RETURN -> {
                    if (loop != null) {
                        throw new Unsupported(line(b), "a return inside a loop");
                    }
                    out.add(new Stmt.Return(e.jumpCond, lastLine(b)));
                    b = stop;
                }
                case Exit.FALL -> b = e.fall;
                default -> {
                    Cfg.Block merge = merge(b, loop);
                    int line = lastLine(b);
                    List<Stmt> then = region(e.fall, merge == null ? stop : merge, loop);
                    List<Stmt> otherwise = region(e.target, merge == null ? stop : merge, loop);
                    if (then.isEmpty() && otherwise.size() == 1 && otherwise.get(0) instanceof Stmt.Break) {
                        // if (!c) break; rather than an empty then
                        out.add(new Stmt.If(e.jumpCond, otherwise, then, line));
                    } else {
                        out.add(new Stmt.If(negate(e.jumpCond), then, otherwise, line));
                    }
                    b = merge == null ? stop : merge;
                }
            }
        }
        return out;
    }

    /** Where the arms of the branch ending {@code b} meet again, or null when they do not before {@code stop}. */
    private Cfg.Block merge(Cfg.Block b, LoopCtx loop) {
        if (loop == null) {
            return b.ipdom;
        }
        int p = loop.ipdom[b.id];
        return p == Cfg.NEXT_ITERATION ? loop.header : p == Cfg.LEAVES ? null : cfg.blocks.get(p);
    }

    // ---------------------------------------------------------------- obstacles

    /** Every construct found outside the subset, in order; reading goes on after each where it can. */
    private final List<Unsupported> obstacles = new ArrayList<>();

    /** Blocks whose operand stack on entry comes from a block that could not be read: their errors follow from it. */
    private final BitSet unknownEntry = new BitSet();

    private void note(Unsupported u, Cfg.Block b) {
        if (!unknownEntry.get(b.id) && obstacles.stream().noneMatch(o -> o.line() == u.line()
                && o.construct().equals(u.construct()))) {
            obstacles.add(u);
        }
    }

    /** {@code b} could not be read to its end: what its successors find on the operand stack is unknown. */
    private void abandon(Cfg.Block b) {
        for (Cfg.Block s : b.succs) {
            if (s.entryStack.length > 0) {
                unknownEntry.set(s.id);
            }
        }
    }

    /** How a block that could not be read ends, from the CFG alone, so that reading can go on after it. */
    private Exit skipped(Cfg.Block b) {
        return switch (b.succs.size()) {
            case 0 -> new Exit(Exit.RETURN, null, null, null);
            case 1 -> new Exit(Exit.FALL, null, b.succs.get(0), null);
            case 2 -> new Exit(Exit.COND, new Expr.Const(Type.PRED, 1), b.succs.get(0), b.succs.get(1));
            default -> throw combined(obstacles);
        };
    }

    /** One exception naming every obstacle. */
    private static Unsupported combined(List<Unsupported> all) {
        return new Unsupported(all.stream().map(u -> new org.acc4j.compiler.Diagnostic.Obstacle(u.line(), u.construct()))
                .toList());
    }

    // ---------------------------------------------------------------- loops

    /**
     * The loop whose head is {@code header}: a {@link Stmt.For} when it is counted (a test of its index against a
     * bound at its head, the only exit, and a constant step at the end of each iteration), else a {@link Stmt.While},
     * which only a loop inside a parallel loop may be. {@code exitOut[0]} is set to the block after the loop as soon
     * as it is known.
     */
    private Stmt loop(Cfg.Block header, List<Stmt> before, LoopCtx outer, Cfg.Block[] exitOut) {
        int line = line(header);
        BitSet natural = cfg.naturalLoop(header);
        java.util.Set<Cfg.Block> exits = new java.util.LinkedHashSet<>();
        for (int id = natural.nextSetBit(0); id >= 0; id = natural.nextSetBit(id + 1)) {
            for (Cfg.Block s : cfg.blocks.get(id).succs) {
                if (!natural.get(s.id)) {
                    exits.add(s);
                }
            }
        }
        if (exits.isEmpty()) {
            throw new Unsupported(line, "a loop that never ends (no test and no break)");
        }
        Cfg.Block follow = Cfg.commonPostDominator(exits);
        if (follow == null) {
            // name the exit that does not come from the loop's head: the return
            Cfg.Block ret = exits.stream().filter(x -> !header.succs.contains(x)).findFirst().orElse(header);
            throw new Unsupported(lastLine(ret) > 0 ? lastLine(ret) : line, "a return inside a loop");
        }
        if (outer != null && !outer.body.get(follow.id)) {
            throw new Unsupported(line, "a labelled break out of an inner loop");
        }
        BitSet body = cfg.breakPaths(exits, follow);
        body.or(natural);
        exitOut[0] = follow;
        int known = obstacles.size();
        LoopCtx ctx = new LoopCtx(header, body, follow, cfg.loopPostDominators(header, body), outer);
        List<Stmt> stmts = region(header, header, ctx, true);
        Stmt.While w = whileOf(stmts, line);
        if (obstacles.size() > known) {
            return w;
        }
        Var index = testedIndex(w);
        LoopSpec spec = index == null ? LoopSpec.NONE : annotations.at(index.slot(), header.start);
        String why = notCounted(w);
        if (why == null) {
            return counted(w, before, spec);
        }
        if (index != null && why.equals(stepNotConstant(index)) && (outer == null || parallelClause(spec))) {
            Expr step = invariantStep(w.body().get(w.body().size() - 1), index);
            Cond cond = step == null ? null : condOf(w, index);
            if (cond == Cond.GT || cond == Cond.GE) {
                // a downward loop's stride is the step's magnitude
                step = step instanceof Expr.Unary u && u.op() == UnOp.NEG ? u.operand() : new Expr.Unary(UnOp.NEG, step);
            }
            if (step != null) {
                why = strideProblem(w, before, index, step);
                if (why == null) {
                    return strided(w, before, spec, index, step);
                }
            }
        }
        if (outer == null) {
            throw new Unsupported(why.startsWith("a break") ? breakLine(w.body()) : line, why);
        }
        if (parallelClause(spec)) {
            throw new Unsupported(line, why + ", so it cannot be the parallel loop " + spec + " asks for");
        }
        return w;
    }

    private static boolean parallelClause(LoopSpec spec) {
        return spec.hasParallelLevel() || spec.independent() || spec.collapse() > 1;
    }

    private static String stepNotConstant(Var v) {
        return "a loop whose index " + v.name() + " does not change by a constant at the end of each iteration";
    }

    /**
     * What {@code v = v + s} adds to {@code v}: {@code s}, or {@code -s} for {@code v = v - s} ({@code s + v} too),
     * when {@code s} is not a constant and does not read {@code v}; else null.
     */
    private static Expr invariantStep(Stmt last, Var v) {
        if (last instanceof Stmt.Assign a && a.var().equals(v) && a.value() instanceof Expr.Binary b
                && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
            Expr s = b.left() instanceof Expr.Local l && l.var().equals(v) ? b.right()
                    : b.op() == BinOp.ADD && b.right() instanceof Expr.Local r && r.var().equals(v) ? b.left() : null;
            if (s == null || s instanceof Expr.Const || mentions(s, v)) {
                return null;
            }
            return b.op() == BinOp.ADD ? s : new Expr.Unary(UnOp.NEG, s);
        }
        return null;
    }

    /**
     * Null when the loop {@code w}, whose index {@code v} moves towards its bound by {@code step} (an expression; the
     * runtime checks that it is positive) at the end of each iteration, can be normalised to a counted loop
     * ({@link Stmt.Stride}), else why not.
     */
    private static String strideProblem(Stmt.While w, List<Stmt> before, Var v, Expr step) {
        String loop = "a loop whose index " + v.name() + " steps by " + step;
        if (v.type() != Type.I32) {
            return loop + " and is a " + v.type().javaName() + " (a step that is not a constant needs an int index)";
        }
        Cond cond = condOf(w, v);
        if (cond != Cond.LT && cond != Cond.LE && cond != Cond.GT && cond != Cond.GE) {
            return loop + " and is tested with " + cond.symbol() + " (a step that is not a constant needs <, <=, > or >=)";
        }
        List<Stmt> body = w.body().subList(0, w.body().size() - 1);
        if (assigns(body, v)) {
            return "a loop whose index " + v.name() + " is also assigned in its body";
        }
        if (before.isEmpty() || !(before.get(before.size() - 1) instanceof Stmt.Assign a) || !a.var().equals(v)
                || mentions(a.value(), v)) {
            return loop + " and is not set just before the loop";
        }
        java.util.Set<Var> changing = new java.util.HashSet<>();
        Dataflow.assigned(body, changing);
        changing.add(v);
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        for (Expr e : List.of(a.value(), bound, step)) {
            if (Exprs.any(e, x -> x instanceof Expr.Load || x instanceof Expr.Local l && changing.contains(l.var()))) {
                return loop + ", and its " + (e == step ? "step" : e == bound ? "bound " : "start ") + (e == step ? ""
                        : e.toString()) + " may change while it runs (a step that is not a constant needs its start, "
                        + "bound and step invariant)";
            }
        }
        return null;
    }

    /**
     * {@code w}, which {@link #strideProblem} accepts, as the counted loop over its iterations ({@link Stmt.Stride});
     * its start, the last statement of {@code before}, moves into the stride.
     */
    private Stmt.For strided(Stmt.While w, List<Stmt> before, LoopSpec spec, Var v, Expr step) {
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        Expr lower = ((Stmt.Assign) before.remove(before.size() - 1)).value();
        Stmt.Stride stride = new Stmt.Stride(v, lower, condOf(w, v), bound, step);
        Var k = new Var(method.maxLocals + temps, Type.I32, v.name() + "_iter");
        temps++;
        List<Stmt> body = new ArrayList<>();
        body.add(new Stmt.Assign(v, stride.index(new Expr.Local(k)), w.line()));
        body.addAll(w.body().subList(0, w.body().size() - 1));
        return new Stmt.For(k, Expr.Const.i32(0), Cond.LT, stride.tripCount(), 1, spec, body, w.line(), stride);
    }

    /** A loop body as a {@link Stmt.While}: a leading {@code if (c) ... else break;} becomes its test. */
    private static Stmt.While whileOf(List<Stmt> stmts, int line) {
        if (!stmts.isEmpty() && stmts.get(0) instanceof Stmt.If i) {
            boolean breakElse = i.otherwise().size() == 1 && i.otherwise().get(0) instanceof Stmt.Break;
            boolean breakThen = i.then().size() == 1 && i.then().get(0) instanceof Stmt.Break;
            if (breakElse && !Dataflow.leaves(i.then()) || breakThen && i.otherwise().isEmpty()) {
                List<Stmt> rest = new ArrayList<>(breakElse ? i.then() : List.of());
                rest.addAll(stmts.subList(1, stmts.size()));
                return new Stmt.While(breakElse ? i.cond() : negate(i.cond()), rest, line);
            }
        }
        return new Stmt.While(new Expr.Const(Type.PRED, 1), stmts, line);
    }

    /** The local a loop's test compares with something else, or null. */
    private static Var testedIndex(Stmt.While w) {
        if (w.cond() instanceof Expr.Compare c) {
            if (c.left() instanceof Expr.Local l && !mentions(c.right(), l.var())) {
                return l.var();
            }
            if (c.right() instanceof Expr.Local l && !mentions(c.left(), l.var())) {
                return l.var();
            }
        }
        return null;
    }

    /** Null when {@code w} is a counted loop, else why not (the words a parallel loop's diagnostic uses). */
    private static String notCounted(Stmt.While w) {
        if (w.endless()) {
            return !w.body().isEmpty() && w.body().get(0) instanceof Stmt.If i && i.line() == w.line()
                    ? "a loop whose test has && or || (a parallel loop's test is one comparison of its index with a bound)"
                    : "a loop that is not a counted for loop (no test at its head)";
        }
        if (!(w.cond() instanceof Expr.Compare)) {
            return "a loop condition that is not a comparison";
        }
        Var v = testedIndex(w);
        if (v == null) {
            return "a loop condition that does not compare the index with a bound";
        }
        if (v.type() != Type.I32 && v.type() != Type.I64) {
            return "a loop whose index is a " + v.type().javaName();
        }
        if (!w.body().isEmpty() && w.body().get(0) instanceof Stmt.If i && i.line() == w.line() && hasBreak(i.then())) {
            return "a loop over " + v.name() + " whose test has && or || (a parallel loop's test is one comparison of "
                    + "its index with a bound)";
        }
        if (hasBreak(w.body())) {
            return "a break out of the loop over " + v.name() + " (a parallel loop runs all its iterations; a loop "
                    + "inside it may break)";
        }
        List<Stmt> body = w.body();
        long step = body.isEmpty() ? 0 : increment(body.get(body.size() - 1), v);
        if (step == 0) {
            return stepNotConstant(v);
        }
        if (step == Long.MIN_VALUE) {
            return "a loop whose index " + v.name() + " steps by Long.MIN_VALUE";
        }
        if (assigns(body.subList(0, body.size() - 1), v)) {
            return "a loop whose index " + v.name() + " is also assigned in its body";
        }
        Cond cond = condOf(w, v);
        return switch (cond) {
            case LT, LE -> step > 0 ? null : "a loop whose index " + v.name() + " steps away from its bound";
            case GT, GE -> step < 0 ? null : "a loop whose index " + v.name() + " steps away from its bound";
            // either direction; whether the index reaches the bound is checked before a parallel launch
            case NE -> null;
            default -> "a loop test with " + cond.symbol() + " (use <, <=, >, >= or !=)";
        };
    }

    /** The test of a counted loop as {@code index cond bound}. */
    private static Cond condOf(Stmt.While w, Var v) {
        Expr.Compare c = (Expr.Compare) w.cond();
        return c.left() instanceof Expr.Local l && l.var().equals(v) ? c.cond() : c.cond().swap();
    }

    /** {@code w}, which {@link #notCounted} accepts, as a {@link Stmt.For}; its start is taken from {@code before}. */
    private static Stmt.For counted(Stmt.While w, List<Stmt> before, LoopSpec spec) {
        Var v = testedIndex(w);
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        List<Stmt> stmts = new ArrayList<>(w.body());
        long step = increment(stmts.remove(stmts.size() - 1), v);
        Expr lower = new Expr.Local(v);
        if (!before.isEmpty() && before.get(before.size() - 1) instanceof Stmt.Assign a && a.var().equals(v)
                && !mentions(a.value(), v)) {
            before.remove(before.size() - 1);
            lower = a.value();
        }
        return new Stmt.For(v, lower, condOf(w, v), bound, step, spec, stmts, w.line());
    }

    /** Whether {@code stmts} break out of the loop whose body they are (not counting breaks of inner loops). */
    private static boolean hasBreak(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Break || s instanceof Stmt.If i && (hasBreak(i.then()) || hasBreak(i.otherwise()))) {
                return true;
            }
        }
        return false;
    }

    /** The line of the first break of a loop body (0 if none). */
    private static int breakLine(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Break b) {
                return b.line();
            }
            if (s instanceof Stmt.If i) {
                int l = breakLine(i.then());
                if (l == 0) {
                    l = breakLine(i.otherwise());
                }
                if (l != 0) {
                    return l;
                }
            }
        }
        return 0;
    }

    /** The constant by which {@code s} changes {@code v} ({@code v = v + c} or {@code v = v - c}), or 0. */
    private static long increment(Stmt s, Var v) {
        if (s instanceof Stmt.Assign a && a.var().equals(v) && a.value() instanceof Expr.Binary b
                && b.left() instanceof Expr.Local l && l.var().equals(v) && b.right() instanceof Expr.Const k) {
            long c = v.type() == Type.I32 ? (int) k.bits() : k.bits();
            return switch (b.op()) {
                case ADD -> c;
                case SUB -> -c;
                default -> 0;
            };
        }
        return 0;
    }

    private static boolean assigns(List<Stmt> stmts, Var v) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && a.var().equals(v)) {
                return true;
            }
            if (s instanceof Stmt.If i && (assigns(i.then(), v) || assigns(i.otherwise(), v))) {
                return true;
            }
            if (s instanceof Stmt.For f && (f.index().equals(v) || assigns(f.body(), v))) {
                return true;
            }
            if (s instanceof Stmt.While w && assigns(w.body(), v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean mentions(Expr e, Var v) {
        return Exprs.mentions(e, v);
    }

    private static boolean readsMemory(Expr e) {
        return Exprs.readsMemory(e);
    }

    private static Expr negate(Expr cond) {
        if (cond instanceof Expr.Compare c) {
            return c.negate();
        }
        if (cond instanceof Expr.Unary u && u.op() == UnOp.NOT) {
            return u.operand();
        }
        return new Expr.Unary(UnOp.NOT, cond);
    }

    private int line(Cfg.Block b) {
        for (int i = b.start; i < b.end; i++) {
            if (lineAt[i] > 0) {
                return lineAt[i];
            }
        }
        return 0;
    }

    private int lastLine(Cfg.Block b) {
        return lineAt[b.end - 1];
    }

    // ---------------------------------------------------------------- symbolic execution of one block

    private Exit execute(Cfg.Block b, List<Object> stack, List<Stmt> out) {
        for (int k = 0; k < b.entryStack.length; k++) {
            char kind = b.entryStack[k];
            if (kind == 'A') {
                Object ref = carriedRefs.get(b.id * 1024L + k);
                if (ref == null) {
                    throw new Unsupported(line(b), "a reference that flows in from another branch");
                }
                stack.add(ref instanceof Row r ? new Row(r.array(), new Expr.Local(stackVar(k, Type.I32))) : ref);
            } else {
                stack.add(new Expr.Local(stackVar(k, kindType(kind))));
            }
        }
        for (int i = b.start; i < b.end; i++) {
            AbstractInsnNode insn = method.instructions.get(i);
            int op = insn.getOpcode();
            if (op < 0) {
                continue;
            }
            int line = lineAt[i];
            if (insn instanceof JumpInsnNode j) {
                Cfg.Block target = cfg.blockStartingAt(method.instructions.indexOf(j.label));
                if (op == Opcodes.GOTO) {
                    carry(stack, out, line, target, null);
                    return new Exit(Exit.FALL, null, target, null);
                }
                Expr cond = branchCondition(op, stack, line);
                if (!stack.isEmpty() && Exprs.any(cond, x -> x instanceof Expr.Local l && l.var().slot() >= stackBase())) {
                    cond = temp(cond, out, line);
                }
                carry(stack, out, line, cfg.blockAt[b.end], target);
                return new Exit(Exit.COND, cond, cfg.blockAt[b.end], target);
            }
            if (op == Opcodes.RETURN) {
                return new Exit(Exit.RETURN, null, null, null);
            }
            if (op >= Opcodes.IRETURN && op <= Opcodes.DRETURN) {
                Expr value = popExpr(stack, line);
                if (!stack.isEmpty()) {
                    throw new Unsupported(line, "a return with values left on the operand stack");
                }
                return new Exit(Exit.RETURN, value, null, null);
            }
            try {
                step(insn, op, stack, out, line);
            } catch (Unsupported u) {
                // note it and go on with the next statement of the block (where the operand stack is empty)
                int next = i + 1;
                while (next < b.end && cfg.stackDepth[next] != 0) {
                    next++;
                }
                if (next >= b.end) {
                    throw u;
                }
                note(u, b);
                stack.clear();
                i = next - 1;
            }
        }
        carry(stack, out, lineAt[b.end - 1], cfg.blockAt[b.end], null);
        return new Exit(Exit.FALL, null, cfg.blockAt[b.end], null);
    }

    /** References left on the stack for a block: (block id * 1024 + depth) to the array, row or this. */
    private final Map<Long, Object> carriedRefs = new HashMap<>();

    private int stackBase() {
        return method.maxLocals + 8192;
    }

    /** The variable that holds stack slot {@code depth} where branches meet (a ?: value, a boolean). */
    private Var stackVar(int depth, Type t) {
        return new Var(stackBase() + depth, t, "stack" + depth);
    }

    private static Type kindType(char kind) {
        return switch (kind) {
            case 'I', 'Z', 'B', 'C', 'S' -> Type.I32;
            case 'J' -> Type.I64;
            case 'F' -> Type.F32;
            default -> Type.F64;
        };
    }

    /**
     * Values left on the stack at the end of a block go to the stack-slot variables that the successor reads;
     * references (arrays, rows, this) must be the same on every path.
     */
    private void carry(List<Object> stack, List<Stmt> out, int line, Cfg.Block to, Cfg.Block alsoTo) {
        if (stack.isEmpty()) {
            return;
        }
        List<Object> values = new ArrayList<>(stack);
        stack.clear();
        if (values.size() > 1) {
            // an entry that reads another depth's variable must not see it already overwritten
            for (int k = 0; k < values.size(); k++) {
                Object v = values.get(k);
                Expr e = v instanceof Expr x ? x : v instanceof Row r ? r.row() : null;
                if (e == null || (e instanceof Expr.Local l && l.var().slot() == stackBase() + k)) {
                    continue;
                }
                if (Exprs.any(e, x -> x instanceof Expr.Local l && l.var().slot() >= stackBase())) {
                    values.set(k, v instanceof Row r ? new Row(r.array(), temp(e, out, line)) : temp(e, out, line));
                }
            }
        }
        for (int k = 0; k < values.size(); k++) {
            Object v = values.get(k);
            if (v instanceof Expr e) {
                Var sv = stackVar(k, e.type());
                if (!(e instanceof Expr.Local l && l.var().equals(sv))) {
                    out.add(new Stmt.Assign(sv, e, line));
                }
                continue;
            }
            Object key = v instanceof Row r ? new Row(r.array(), null) : v;
            for (Cfg.Block succ : new Cfg.Block[] {to, alsoTo}) {
                if (succ == null) {
                    continue;
                }
                Object old = carriedRefs.putIfAbsent(succ.id * 1024L + k, key);
                if (old != null && !old.equals(key)) {
                    throw new Unsupported(line, "a ?: that chooses between two arrays");
                }
            }
            if (v instanceof Row r) {
                Var sv = stackVar(k, Type.I32);
                if (!(r.row() instanceof Expr.Local l && l.var().equals(sv))) {
                    out.add(new Stmt.Assign(sv, r.row(), line));
                }
            }
        }
    }

    private static void requireEmpty(List<Object> stack, int line) {
        if (!stack.isEmpty()) {
            throw new Unsupported(line, "a value carried across a branch (a ?: expression or a boolean value)");
        }
    }

    private Expr branchCondition(int op, List<Object> stack, int line) {
        switch (op) {
            case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE -> {
                Expr v = popExpr(stack, line);
                Cond c = cond(op - Opcodes.IFEQ);
                if (v instanceof Expr.Cmp3 k) {
                    boolean unordered = false;
                    if (k.left().type().isFloat()) {
                        int nan = k.nanIsOne() ? 1 : -1;
                        unordered = holds(c, nan);
                    }
                    return new Expr.Compare(c, k.left(), k.right(), unordered);
                }
                return new Expr.Compare(c, v, Expr.Const.i32(0), false);
            }
            case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
                 Opcodes.IF_ICMPLE -> {
                Expr r = popExpr(stack, line);
                Expr l = popExpr(stack, line);
                return new Expr.Compare(cond(op - Opcodes.IF_ICMPEQ), l, r, false);
            }
            case Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE -> throw new Unsupported(line, "a comparison of references");
            case Opcodes.IFNULL, Opcodes.IFNONNULL -> throw new Unsupported(line, "a null test");
            default -> throw new Unsupported(line, "the instruction " + op);
        }
    }

    private static Cond cond(int k) {
        return switch (k) {
            case 0 -> Cond.EQ;
            case 1 -> Cond.NE;
            case 2 -> Cond.LT;
            case 3 -> Cond.GE;
            case 4 -> Cond.GT;
            default -> Cond.LE;
        };
    }

    private static boolean holds(Cond c, int x) {
        return switch (c) {
            case EQ -> x == 0;
            case NE -> x != 0;
            case LT -> x < 0;
            case GE -> x >= 0;
            case GT -> x > 0;
            case LE -> x <= 0;
        };
    }

    private void step(AbstractInsnNode insn, int op, List<Object> stack, List<Stmt> out, int line) {
        switch (op) {
            case Opcodes.NOP -> { }
            case Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2, Opcodes.ICONST_3,
                 Opcodes.ICONST_4, Opcodes.ICONST_5 -> stack.add(Expr.Const.i32(op - Opcodes.ICONST_0));
            case Opcodes.LCONST_0, Opcodes.LCONST_1 -> stack.add(Expr.Const.i64(op - Opcodes.LCONST_0));
            case Opcodes.FCONST_0, Opcodes.FCONST_1, Opcodes.FCONST_2 -> stack.add(Expr.Const.f32(op - Opcodes.FCONST_0));
            case Opcodes.DCONST_0, Opcodes.DCONST_1 -> stack.add(Expr.Const.f64(op - Opcodes.DCONST_0));
            case Opcodes.BIPUSH, Opcodes.SIPUSH -> stack.add(Expr.Const.i32(((IntInsnNode) insn).operand));
            case Opcodes.LDC -> stack.add(constant(((LdcInsnNode) insn).cst, line));
            case Opcodes.ILOAD, Opcodes.LLOAD, Opcodes.FLOAD, Opcodes.DLOAD -> {
                int slot = ((VarInsnNode) insn).var;
                stack.add(new Expr.Local(var(slot, loadType(op), insn)));
            }
            case Opcodes.ALOAD -> stack.add(reference(((VarInsnNode) insn).var, line));
            case Opcodes.ISTORE, Opcodes.LSTORE, Opcodes.FSTORE, Opcodes.DSTORE -> {
                Expr value = popExpr(stack, line);
                Var v = var(((VarInsnNode) insn).var, loadType(op - (Opcodes.ISTORE - Opcodes.ILOAD)), insn.getNext());
                assign(v, value, stack, out, line);
            }
            case Opcodes.ASTORE -> {
                Object value = pop(stack, line);
                if (value == THIS) {
                    // an inlined instance method's receiver
                    thisSlots.add(((VarInsnNode) insn).var);
                    return;
                }
                if (value instanceof Row) {
                    Var rv = rowSlots.get(((VarInsnNode) insn).var);
                    if (rv != null) {
                        spill(stack, out, line, rv, false);
                    }
                }
                bindArray(((VarInsnNode) insn).var, value, out, line);
            }
            case Opcodes.IINC -> {
                IincInsnNode inc = (IincInsnNode) insn;
                Var v = var(inc.var, Type.I32, insn);
                assign(v, new Expr.Binary(BinOp.ADD, new Expr.Local(v), Expr.Const.i32(inc.incr)), stack, out, line);
            }
            case Opcodes.IALOAD, Opcodes.LALOAD, Opcodes.FALOAD, Opcodes.DALOAD, Opcodes.BALOAD, Opcodes.CALOAD,
                 Opcodes.SALOAD -> {
                Expr index = popExpr(stack, line);
                Object arr = pop(stack, line);
                if (arr instanceof Row r) {
                    checkElement(r.array(), op, line);
                    stack.add(new Expr.Load(r.array(), r.row(), index));
                } else {
                    ArrayRef a = asArray(arr, line, 1);
                    checkElement(a, op, line);
                    stack.add(new Expr.Load(a, index));
                }
            }
            case Opcodes.IASTORE, Opcodes.LASTORE, Opcodes.FASTORE, Opcodes.DASTORE, Opcodes.BASTORE, Opcodes.CASTORE,
                 Opcodes.SASTORE -> {
                Expr value = popExpr(stack, line);
                Expr index = popExpr(stack, line);
                Object arr = pop(stack, line);
                spill(stack, out, line, null, true);
                if (arr instanceof Row r) {
                    checkElement(r.array(), op - (Opcodes.IASTORE - Opcodes.IALOAD), line);
                    out.add(new Stmt.Store(r.array(), r.row(), index, value, line));
                } else {
                    ArrayRef a = asArray(arr, line, 1);
                    checkElement(a, op - (Opcodes.IASTORE - Opcodes.IALOAD), line);
                    out.add(new Stmt.Store(a, index, value, line));
                }
            }
            case Opcodes.AALOAD -> {
                Expr index = popExpr(stack, line);
                ArrayRef a = asArray(pop(stack, line), line, 2);
                stack.add(new Row(a, index));
            }
            case Opcodes.AASTORE -> throw new Unsupported(line, "a store of a row into an array of arrays");
            case Opcodes.ARRAYLENGTH -> {
                Object arr = pop(stack, line);
                stack.add(arr instanceof Row r ? new Expr.Length(r.array(), r.row())
                        : new Expr.Length(asArray(arr, line, 0)));
            }
            case Opcodes.INVOKESTATIC -> {
                MethodInsnNode m = (MethodInsnNode) insn;
                if (m.owner.equals("org/acc4j/Acc") && AtomicOp.named(m.name) != null) {
                    atomic(m, stack, out, line);
                } else {
                    stack.add(call(m, stack, line));
                }
            }
            case Opcodes.POP -> pop(stack, line);
            case Opcodes.POP2 -> {
                Object v = pop(stack, line);
                if (!isWide(v)) {
                    pop(stack, line);
                }
            }
            case Opcodes.DUP, Opcodes.DUP_X1, Opcodes.DUP_X2, Opcodes.DUP2, Opcodes.DUP2_X1, Opcodes.DUP2_X2,
                 Opcodes.SWAP -> shuffle(op, stack, out, line);
            case Opcodes.IADD, Opcodes.LADD, Opcodes.FADD, Opcodes.DADD -> binary(BinOp.ADD, stack, line);
            case Opcodes.ISUB, Opcodes.LSUB, Opcodes.FSUB, Opcodes.DSUB -> binary(BinOp.SUB, stack, line);
            case Opcodes.IMUL, Opcodes.LMUL, Opcodes.FMUL, Opcodes.DMUL -> binary(BinOp.MUL, stack, line);
            case Opcodes.IDIV, Opcodes.LDIV, Opcodes.FDIV, Opcodes.DDIV -> binary(BinOp.DIV, stack, line);
            case Opcodes.IREM, Opcodes.LREM -> binary(BinOp.REM, stack, line);
            case Opcodes.FREM, Opcodes.DREM -> throw new Unsupported(line, "the floating-point remainder %");
            case Opcodes.ISHL, Opcodes.LSHL -> binary(BinOp.SHL, stack, line);
            case Opcodes.ISHR, Opcodes.LSHR -> binary(BinOp.SHR, stack, line);
            case Opcodes.IUSHR, Opcodes.LUSHR -> binary(BinOp.USHR, stack, line);
            case Opcodes.IAND, Opcodes.LAND -> binary(BinOp.AND, stack, line);
            case Opcodes.IOR, Opcodes.LOR -> binary(BinOp.OR, stack, line);
            case Opcodes.IXOR, Opcodes.LXOR -> binary(BinOp.XOR, stack, line);
            case Opcodes.INEG, Opcodes.LNEG, Opcodes.FNEG, Opcodes.DNEG ->
                    stack.add(new Expr.Unary(UnOp.NEG, popExpr(stack, line)));
            case Opcodes.I2L -> convert(Type.I64, stack, line);
            case Opcodes.I2F, Opcodes.L2F, Opcodes.D2F -> convert(Type.F32, stack, line);
            case Opcodes.I2D, Opcodes.L2D, Opcodes.F2D -> convert(Type.F64, stack, line);
            case Opcodes.L2I, Opcodes.F2I, Opcodes.D2I -> convert(Type.I32, stack, line);
            case Opcodes.F2L, Opcodes.D2L -> convert(Type.I64, stack, line);
            case Opcodes.I2B -> stack.add(new Expr.Unary(UnOp.TO_BYTE, popExpr(stack, line)));
            case Opcodes.I2S -> stack.add(new Expr.Unary(UnOp.TO_SHORT, popExpr(stack, line)));
            case Opcodes.I2C -> stack.add(new Expr.Unary(UnOp.TO_CHAR, popExpr(stack, line)));
            case Opcodes.LCMP -> cmp3(stack, line, false);
            case Opcodes.FCMPL, Opcodes.DCMPL -> cmp3(stack, line, false);
            case Opcodes.FCMPG, Opcodes.DCMPG -> cmp3(stack, line, true);
            case Opcodes.GETFIELD, Opcodes.GETSTATIC -> field((FieldInsnNode) insn, op == Opcodes.GETSTATIC, stack, line);
            case Opcodes.PUTFIELD, Opcodes.PUTSTATIC ->
                    throw new Unsupported(line, "an assignment to the field " + ((FieldInsnNode) insn).name);
            case Opcodes.INVOKEVIRTUAL, Opcodes.INVOKESPECIAL, Opcodes.INVOKEINTERFACE -> {
                MethodInsnNode m = (MethodInsnNode) insn;
                if (op == Opcodes.INVOKEVIRTUAL && m.owner.startsWith("[") && m.name.equals("clone")) {
                    cloneArray(m, stack, out, line);
                    return;
                }
                throw new Unsupported(line, "a call to " + m.owner.replace('/', '.') + "." + m.name);
            }
            case Opcodes.INVOKEDYNAMIC -> throw new Unsupported(line, "a lambda, string concatenation or other invokedynamic");
            case Opcodes.NEWARRAY -> newArray((IntInsnNode) insn, stack, out, line);
            case Opcodes.NEW, Opcodes.ANEWARRAY, Opcodes.MULTIANEWARRAY ->
                    throw new Unsupported(line, "an allocation (new)");
            case Opcodes.ATHROW -> throw new Unsupported(line, "a throw");
            case Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> throw new Unsupported(line, "a synchronized block");
            case Opcodes.CHECKCAST -> {
                // the cast javac puts after a clone of a private array
                if (stack.isEmpty() || !(stack.get(stack.size() - 1) instanceof ArrayRef a
                        && a.source() instanceof ArrayRef.Private
                        && ((TypeInsnNode) insn).desc.equals("[" + a.elem().descriptor()))) {
                    throw new Unsupported(line, "a cast or instanceof on a reference");
                }
            }
            case Opcodes.INSTANCEOF -> throw new Unsupported(line, "a cast or instanceof on a reference");
            case Opcodes.TABLESWITCH, Opcodes.LOOKUPSWITCH -> throw new Unsupported(line, "a switch");
            case Opcodes.ARETURN -> throw new Unsupported(line, "a method that returns a reference");
            case Opcodes.ACONST_NULL -> throw new Unsupported(line, "null");
            default -> throw new Unsupported(line, "the bytecode instruction " + op);
        }
    }

    private static Expr constant(Object cst, int line) {
        if (cst instanceof Integer i) {
            return Expr.Const.i32(i);
        }
        if (cst instanceof Long l) {
            return Expr.Const.i64(l);
        }
        if (cst instanceof Float f) {
            return Expr.Const.f32(f);
        }
        if (cst instanceof Double d) {
            return Expr.Const.f64(d);
        }
        throw new Unsupported(line, "a constant of type " + cst.getClass().getSimpleName());
    }

    private static Type loadType(int op) {
        return switch (op) {
            case Opcodes.ILOAD -> Type.I32;
            case Opcodes.LLOAD -> Type.I64;
            case Opcodes.FLOAD -> Type.F32;
            default -> Type.F64;
        };
    }

    private Var var(int slot, Type type, AbstractInsnNode at) {
        return new Var(slot, type, localName(slot, at));
    }

    private String localName(int slot, AbstractInsnNode at) {
        MethodBody.Param p = paramAt(slot);
        if (p != null) {
            return p.name();
        }
        if (method.localVariables != null && at != null) {
            int pos = method.instructions.indexOf(at);
            for (LocalVariableNode lv : method.localVariables) {
                if (lv.index == slot && pos >= method.instructions.indexOf(lv.start) - 1
                        && pos < method.instructions.indexOf(lv.end)) {
                    return lv.name;
                }
            }
        }
        return "v" + slot;
    }

    private MethodBody.Param paramAt(int slot) {
        for (MethodBody.Param p : params) {
            if (p.slot() == slot) {
                return p;
            }
        }
        return null;
    }

    private Object reference(int slot, int line) {
        if ((slot == 0 && !isStatic()) || thisSlots.contains(slot)) {
            return THIS;
        }
        ArrayRef bound = arraySlots.get(slot);
        if (bound != null) {
            return bound;
        }
        if (rowSlots.containsKey(slot)) {
            return new Row(rowArrays.get(slot), new Expr.Local(rowSlots.get(slot)));
        }
        MethodBody.Param p = paramAt(slot);
        if (p != null) {
            Elem element = Elem.ofArray(p.descriptor());
            if (element == null) {
                throw new Unsupported(line, "the parameter " + p.name() + " of type "
                        + org.objectweb.asm.Type.getType(p.descriptor()).getClassName());
            }
            return new ArrayRef(new ArrayRef.Parameter(p.index(), p.name()), element, Elem.arrayDims(p.descriptor()));
        }
        throw new Unsupported(line, "a local variable holding a reference that is not an array from a parameter or field");
    }

    private void bindArray(int slot, Object value, List<Stmt> out, int line) {
        if (value instanceof Row r) {
            if (paramAt(slot) != null) {
                throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
            }
            ArrayRef old = rowArrays.putIfAbsent(slot, r.array());
            if (old != null && !old.equals(r.array())) {
                throw new Unsupported(line, "an array variable that refers to rows of different arrays");
            }
            Var v = rowSlots.computeIfAbsent(slot, k -> new Var(method.maxLocals + 4096 + k, Type.I32, localName(k, null) + "_row"));
            out.add(new Stmt.Assign(v, r.row(), line));
            return;
        }
        if (!(value instanceof ArrayRef a)) {
            throw new Unsupported(line, "a local variable holding a reference that is not an array from a parameter or field");
        }
        if (a.source() instanceof ArrayRef.Private) {
            // a new array each time the allocation runs: the variable refers to the latest
            if (paramAt(slot) != null) {
                throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
            }
            ArrayRef old = arraySlots.get(slot);
            if (old != null && !(old.source() instanceof ArrayRef.Private)) {
                throw new Unsupported(line, "an array variable that refers to different arrays");
            }
            arraySlots.put(slot, a);
            return;
        }
        if (paramAt(slot) != null) {
            throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
        }
        ArrayRef old = arraySlots.putIfAbsent(slot, a);
        if (old != null && !old.equals(a)) {
            throw new Unsupported(line, "an array variable that refers to different arrays");
        }
    }

    /** The most elements a private array may have. */
    public static final int MAX_PRIVATE = 32;

    private int privates;

    /**
     * {@code new T[n]} in the method: a private array when {@code n} is a constant up to {@link #MAX_PRIVATE} and
     * {@code T} is {@code int}, {@code long}, {@code float} or {@code double}; its elements are set to zero where it
     * is allocated, as Java's are.
     */
    private void newArray(IntInsnNode insn, List<Object> stack, List<Stmt> out, int line) {
        Expr size = popExpr(stack, line);
        Elem elem = switch (insn.operand) {
            case Opcodes.T_INT -> Elem.INT;
            case Opcodes.T_LONG -> Elem.LONG;
            case Opcodes.T_FLOAT -> Elem.FLOAT;
            case Opcodes.T_DOUBLE -> Elem.DOUBLE;
            default -> null;
        };
        String name = allocatedName(insn);
        String what = "an allocation (new) of " + name;
        if (elem == null) {
            throw new Unsupported(line, what + ": a private array of a type other than int, long, float or double");
        }
        if (!(size instanceof Expr.Const k) || (int) k.bits() < 0 || (int) k.bits() > MAX_PRIVATE) {
            throw new Unsupported(line, what + " = new " + elem.javaName() + "[" + size + "]: its size is not a"
                    + " constant from 0 to " + MAX_PRIVATE + " (a private array in a loop body needs a size known at"
                    + " compile time)");
        }
        ArrayRef a = privateArray(name, elem, (int) k.bits());
        Expr zero = elem.type() == Type.I64 ? Expr.Const.i64(0) : elem.type() == Type.F32 ? Expr.Const.f32(0)
                : elem.type() == Type.F64 ? Expr.Const.f64(0) : Expr.Const.i32(0);
        for (int i = 0; i < ((ArrayRef.Private) a.source()).length(); i++) {
            out.add(new Stmt.Store(a, Expr.Const.i32(i), zero, line));
        }
        stack.add(a);
    }

    /** {@code c.clone()}: a private copy of a private array (whose length is known); any other array is refused. */
    private void cloneArray(MethodInsnNode m, List<Object> stack, List<Stmt> out, int line) {
        Object receiver = pop(stack, line);
        String name = allocatedName(m);
        if (!(receiver instanceof ArrayRef c) || !(c.source() instanceof ArrayRef.Private p)) {
            throw new Unsupported(line, "an allocation (new) of " + name + " = " + (receiver instanceof ArrayRef c
                    ? c.name() : "an array") + ".clone(): its length is not known at compile time (only a clone of"
                    + " an array allocated in the loop body with a constant size is private)");
        }
        ArrayRef a = privateArray(name, c.elem(), p.length());
        for (int i = 0; i < ((ArrayRef.Private) a.source()).length(); i++) {
            out.add(new Stmt.Store(a, Expr.Const.i32(i), new Expr.Load(c, Expr.Const.i32(i)), line));
        }
        stack.add(a);
    }

    private ArrayRef privateArray(String name, Elem elem, int length) {
        int id = privates++;
        return new ArrayRef(new ArrayRef.Private(name, id, length, method.maxLocals + 16384 + id * (MAX_PRIVATE + 2)),
                elem, 1);
    }

    /** The name of the local an allocation is stored into (the next instruction's), else "an array". */
    private String allocatedName(AbstractInsnNode insn) {
        AbstractInsnNode next = insn.getNext();
        while (next != null && (next.getOpcode() < 0 || next.getOpcode() == Opcodes.CHECKCAST)) {
            next = next.getNext();
        }
        if (next != null && next.getOpcode() == Opcodes.ASTORE) {
            int slot = ((VarInsnNode) next).var;
            String n = localName(slot, next.getNext());
            return n == null ? "the array in local " + slot : n;
        }
        return "an array";
    }

    private void field(FieldInsnNode f, boolean isStatic, List<Object> stack, int line) {
        if (!isStatic) {
            Object target = pop(stack, line);
            if (target != THIS) {
                throw new Unsupported(line, "the field " + f.name + " of an object other than this");
            }
        }
        ArrayRef.Field source = new ArrayRef.Field(f.owner, f.name, f.desc, isStatic);
        Elem element = Elem.ofArray(f.desc);
        if (element != null) {
            stack.add(new ArrayRef(source, element, Elem.arrayDims(f.desc)));
            return;
        }
        Type scalar = Type.ofDescriptor(f.desc);
        if (scalar == null) {
            throw new Unsupported(line, "the field " + f.name + " of type " + org.objectweb.asm.Type.getType(f.desc).getClassName());
        }
        stack.add(new Expr.FieldValue(source, scalar));
    }

    /** {@code load} is the access's xALOAD opcode (a store's xASTORE mapped onto it); baload serves byte and boolean. */
    private static void checkElement(ArrayRef a, int load, int line) {
        boolean matches = switch (load) {
            case Opcodes.IALOAD -> a.elem() == Elem.INT;
            case Opcodes.LALOAD -> a.elem() == Elem.LONG;
            case Opcodes.FALOAD -> a.elem() == Elem.FLOAT;
            case Opcodes.DALOAD -> a.elem() == Elem.DOUBLE;
            case Opcodes.BALOAD -> a.elem() == Elem.BYTE || a.elem() == Elem.BOOLEAN;
            case Opcodes.CALOAD -> a.elem() == Elem.CHAR;
            default -> a.elem() == Elem.SHORT;
        };
        if (!matches) {
            throw new Unsupported(line, "an access to " + a.name() + " (" + a.javaType()
                    + ") with the wrong element type");
        }
    }

    private void assign(Var v, Expr value, List<Object> stack, List<Stmt> out, int line) {
        spill(stack, out, line, v, false);
        out.add(new Stmt.Assign(v, value, line));
    }

    /**
     * Moves stack expressions that read {@code v} (or, with {@code memory}, any array) into temporaries, so
     * that the statement about to be emitted cannot change what they evaluate to.
     */
    private void spill(List<Object> stack, List<Stmt> out, int line, Var v, boolean memory) {
        for (int k = 0; k < stack.size(); k++) {
            if (stack.get(k) instanceof Row r && !(r.row() instanceof Expr.Const)
                    && ((v != null && mentions(r.row(), v)) || (memory && readsMemory(r.row())))) {
                stack.set(k, new Row(r.array(), temp(r.row(), out, line)));
                continue;
            }
            if (stack.get(k) instanceof Expr e && !(e instanceof Expr.Const)
                    && ((v != null && mentions(e, v)) || (memory && readsMemory(e)))) {
                stack.set(k, temp(e, out, line));
            }
        }
    }

    private Expr temp(Expr e, List<Stmt> out, int line) {
        Var t = new Var(method.maxLocals + temps, e.type(), "tmp" + temps);
        temps++;
        out.add(new Stmt.Assign(t, e, line));
        return new Expr.Local(t);
    }

    private void shuffle(int op, List<Object> stack, List<Stmt> out, int line) {
        // values duplicated on the stack must stay the same value: keep only cheap, side-effect-free leaves
        switch (op) {
            case Opcodes.SWAP -> {
                Object a = pop(stack, line);
                Object b = pop(stack, line);
                stack.add(a);
                stack.add(b);
            }
            case Opcodes.DUP -> {
                Object a = stable(pop(stack, line), out, line);
                stack.add(a);
                stack.add(a);
            }
            case Opcodes.DUP_X1 -> {
                Object a = stable(pop(stack, line), out, line);
                Object b = pop(stack, line);
                stack.add(a);
                stack.add(b);
                stack.add(a);
            }
            case Opcodes.DUP_X2 -> {
                Object a = stable(pop(stack, line), out, line);
                Object b = pop(stack, line);
                if (isWide(b)) {
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object c = pop(stack, line);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
            case Opcodes.DUP2 -> {
                Object a = stable(pop(stack, line), out, line);
                if (isWide(a)) {
                    stack.add(a);
                    stack.add(a);
                } else {
                    Object b = stable(pop(stack, line), out, line);
                    stack.add(b);
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                }
            }
            case Opcodes.DUP2_X1 -> {
                Object a = stable(pop(stack, line), out, line);
                if (isWide(a)) {
                    Object b = pop(stack, line);
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object b = stable(pop(stack, line), out, line);
                    Object c = pop(stack, line);
                    stack.add(b);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
            default -> {
                // DUP2_X2: only the common form (wide value over a wide value, or over two narrow ones)
                Object a = stable(pop(stack, line), out, line);
                if (!isWide(a)) {
                    throw new Unsupported(line, "the instruction dup2_x2 on narrow values");
                }
                Object b = pop(stack, line);
                if (isWide(b)) {
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object c = pop(stack, line);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
        }
    }

    private Object stable(Object v, List<Stmt> out, int line) {
        if (v instanceof Expr e && !(e instanceof Expr.Const) && !(e instanceof Expr.Local)
                && !(e instanceof Expr.FieldValue)) {
            return temp(e, out, line);
        }
        return v;
    }

    private static boolean isWide(Object v) {
        return v instanceof Expr e && e.type().isWide();
    }

    private void binary(BinOp op, List<Object> stack, int line) {
        Expr r = popExpr(stack, line);
        Expr l = popExpr(stack, line);
        stack.add(new Expr.Binary(op, l, r));
    }

    private void convert(Type to, List<Object> stack, int line) {
        stack.add(new Expr.Convert(to, popExpr(stack, line)));
    }

    private void cmp3(List<Object> stack, int line, boolean nanIsOne) {
        Expr r = popExpr(stack, line);
        Expr l = popExpr(stack, line);
        stack.add(new Expr.Cmp3(l, r, nanIsOne));
    }

    private static Object pop(List<Object> stack, int line) {
        if (stack.isEmpty()) {
            throw new Unsupported(line, "a value that flows in from another branch");
        }
        return stack.remove(stack.size() - 1);
    }

    private static Expr popExpr(List<Object> stack, int line) {
        Object v = pop(stack, line);
        if (v instanceof Expr e) {
            return e;
        }
        throw new Unsupported(line, "a reference used as a number");
    }

    /** {@code v} as an array of {@code dims} dimensions (0: any). */
    private static ArrayRef asArray(Object v, int line, int dims) {
        if (v instanceof ArrayRef a) {
            if (dims != 0 && a.dims() != dims) {
                throw new Unsupported(line, "an access to " + a.name() + " with the wrong number of dimensions");
            }
            return a;
        }
        throw new Unsupported(line, "an array that is not a parameter, a field or a row of one");
    }

    /** Whether {@code m} calls {@code org.acc4j.Acc.onDevice()}, which a kernel answers with the constant true. */
    static boolean isOnDevice(MethodInsnNode m) {
        return m.getOpcode() == Opcodes.INVOKESTATIC && m.owner.equals("org/acc4j/Acc") && m.name.equals("onDevice")
                && m.desc.equals("()Z");
    }

    /**
     * A call of {@code Acc.atomic...}: an {@link Stmt.Atomic}, whose old value is a new local pushed on the stack, or
     * a constant placeholder when the next instruction discards it (the update form).
     */
    private void atomic(MethodInsnNode m, List<Object> stack, List<Stmt> out, int line) {
        AtomicOp op = AtomicOp.named(m.name);
        List<Expr> operands = new ArrayList<>();
        for (int k = 0; k < op.operands(); k++) {
            operands.add(0, popExpr(stack, line));
        }
        Expr index = popExpr(stack, line);
        Object arr = pop(stack, line);
        ArrayRef a = arr instanceof Row r ? r.array() : asArray(arr, line, 1);
        Expr row = arr instanceof Row r ? r.row() : null;
        if (!op.accepts(a.element()) || index.type() != Type.I32) {
            throw new Unsupported(line, "Acc." + m.name + m.desc);
        }
        spill(stack, out, line, null, true);
        org.objectweb.asm.Type ret = org.objectweb.asm.Type.getReturnType(m.desc);
        if (ret.getSort() == org.objectweb.asm.Type.VOID) {
            out.add(new Stmt.Atomic(op, a, row, index, operands, null, line));
            return;
        }
        Type t = op == AtomicOp.CAS ? Type.I32 : a.element();
        AbstractInsnNode next = m.getNext();
        while (next != null && next.getOpcode() < 0) {
            next = next.getNext();
        }
        if (next != null && (next.getOpcode() == Opcodes.POP || next.getOpcode() == Opcodes.POP2)) {
            out.add(new Stmt.Atomic(op, a, row, index, operands, null, line));
            stack.add(new Expr.Const(t, 0));
            return;
        }
        Var result = new Var(method.maxLocals + temps, t, "old" + temps);
        temps++;
        out.add(new Stmt.Atomic(op, a, row, index, operands, result, line));
        stack.add(new Expr.Local(result));
    }

    /**
     * A call of a {@code java.lang.Math} method the kernel compiler knows, or {@code Acc.onDevice()} (true: the kernel
     * runs on the device); anything else is unsupported.
     */
    private Expr call(MethodInsnNode m, List<Object> stack, int line) {
        if (isOnDevice(m)) {
            return Expr.Const.i32(1);
        }
        boolean math = m.owner.equals("java/lang/Math");
        boolean strict = m.owner.equals("java/lang/StrictMath");
        org.acc4j.compiler.ir.MathFn fn = org.acc4j.compiler.ir.MathFn.named(m.name);
        org.objectweb.asm.Type[] argTypes = org.objectweb.asm.Type.getArgumentTypes(m.desc);
        Type result = Type.ofDescriptor(org.objectweb.asm.Type.getReturnType(m.desc).getDescriptor());
        if ((!math && !strict) || fn == null || fn.arity() != argTypes.length || result == null) {
            throw new Unsupported(line, "a call to " + m.owner.replace('/', '.') + "." + m.name);
        }
        if (strict && !fn.exact()) {
            throw new Unsupported(line, "StrictMath." + m.name + " (its fdlibm result is not reproduced on the GPU; use Math."
                    + m.name + ", which allows 1 ulp)");
        }
        for (org.objectweb.asm.Type t : argTypes) {
            if (Type.ofDescriptor(t.getDescriptor()) != result) {
                throw new Unsupported(line, "a call to Math." + m.name + m.desc);
            }
        }
        List<Expr> args = new ArrayList<>();
        for (int k = 0; k < argTypes.length; k++) {
            args.add(0, popExpr(stack, line));
        }
        return new Expr.Call(fn, result, args);
    }
}
