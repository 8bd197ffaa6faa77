package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.ParameterNode;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * Reads a method's bytecode into the structured loop-nest IR.
 *
 * <p>Blocks are executed symbolically: ASM's {@link Frame} moves the operand stack and the
 * {@link SymbolicInterpreter} computes the expression trees it holds and the statements of stores, atomics and
 * allocations; this class reads the blocks' jumps and returns, and rebuilds the CFG as structure: a natural loop whose header compares its induction variable with a bound, with no other exit and a
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
    static final Object THIS = new Object() {
        @Override
        public String toString() {
            return "this";
        }
    };

    final ClassNode owner;
    final MethodNode method;
    final Cfg cfg;
    final LoopAnnotations annotations;
    final int[] lineAt;
    final List<MethodBody.Param> params = new ArrayList<>();
    final Map<Integer, ArrayRef> arraySlots = new HashMap<>();
    final Map<Integer, Var> rowSlots = new HashMap<>();
    final Map<Integer, ArrayRef> rowArrays = new HashMap<>();
    final java.util.Set<Integer> thisSlots = new java.util.HashSet<>();
    /** Locals that hold an object parameter's reference (an inlined method's receiver), by slot. */
    final Map<Integer, Holder> holderSlots = new HashMap<>();
    /** The parameters used as objects: their fields read, or held in a local. */
    final java.util.Set<Integer> objects = new java.util.TreeSet<>();
    /** Locals holding an element of an array of objects (its index, and its array) and an array of objects, by slot. */
    final Map<Integer, Var> elementSlots = new HashMap<>();
    final Map<Integer, ObjectArray> elementArrays = new HashMap<>();
    final Map<Integer, ObjectArray> objectArraySlots = new HashMap<>();

    /** A row {@code array[row]} of a two-dimensional array, as a value on the stack or in a local. */
    record Row(ArrayRef array, Expr row) {
    }

    /**
     * The object a parameter of a class type refers to ({@code b} of {@code b.data}): a kernel may read its array and
     * primitive fields, which the call reads on the host; any other use of it is refused.
     */
    record Holder(MethodBody.Param param, java.util.List<ArrayRef.Hop> path, String name) {
        /** A parameter's object. */
        Holder(MethodBody.Param param) {
            this(param, java.util.List.of(), param.name());
        }

        /** Whether it is reached through a field holding an object ({@code b.inner}, {@code this.grid}). */
        boolean chained() {
            return !path.isEmpty();
        }

        /** The parameter's index where the path starts at one, else -1 ({@code this} or a static field). */
        int holder() {
            return param == null ? -1 : param.index();
        }

        /** This object's field {@code f} holding an object. */
        Holder then(ArrayRef.Hop f) {
            java.util.List<ArrayRef.Hop> p = new java.util.ArrayList<>(path);
            p.add(f);
            return new Holder(param, p, name == null ? f.name() : name + "." + f.name());
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * An object made in the nest ({@code new Complex(x, y)}) and held in the local {@code slot}: its fields are locals
     * of their own ({@link #objectField}). A local that is given another such object takes a copy of its fields,
     * which is Java's meaning for objects whose fields are final (only their constructors set them).
     */
    record Obj(String cls, int slot) {
        @Override
        public String toString() {
            return "an object of " + cls.substring(cls.lastIndexOf('/') + 1);
        }
    }

    /** The object {@code new} made, before its constructor runs: every field is zero. */
    record Fresh(String cls) {
    }

    /** The classes whose objects a nest may make, with their fields (the constructors the inliner expanded). */
    java.util.Map<String, java.util.List<Inliner.ObjectField>> objectClasses = java.util.Map.of();
    /** The locals holding made objects, with their classes. */
    final java.util.Map<Integer, String> objectSlots = new java.util.HashMap<>();
    private final java.util.Map<String, Var> objectVars = new java.util.HashMap<>();

    /** The local holding field {@code f} of the object in local {@code slot}. */
    Var objectField(int slot, String cls, String name, AbstractInsnNode at, int line) {
        java.util.List<Inliner.ObjectField> fields = objectClasses.get(cls);
        int k = 0;
        while (k < fields.size() && !fields.get(k).name().equals(name)) {
            k++;
        }
        if (k == fields.size()) {
            throw new Unsupported(line, "the field " + name + " of " + cls.replace('/', '.'));
        }
        Inliner.ObjectField f = fields.get(k);
        int index = k;
        return objectVars.computeIfAbsent(slot + "." + name, x -> {
            String local = acc.localName(slot, at);
            return new Var(method.maxLocals + 1_000_000 + slot * 64 + index, Type.ofDescriptor(f.descriptor()),
                    (local == null ? "v" + slot : local) + "." + name);
        });
    }

    /** The most fields holding objects a kernel follows to reach an array or a value ({@code a.b.c.u[i]}: 2). */
    static final int MAX_HOPS = 4;
    /** Whether the method inlines an overridable method, whose guard checks only parameters' and this's classes. */
    boolean virtualCalls;
    int temps;
    /** Whether the method is read to be inlined into a nest (see {@link #read(ClassNode, MethodNode, boolean)}). */
    boolean callee;

    final OperandStack ops = new OperandStack(this);
    final Accesses acc = new Accesses(this);
    final SymbolicInterpreter interpreter = new SymbolicInterpreter(this);

    private MethodReader(ClassNode owner, MethodNode method) {
        this.owner = owner;
        this.method = Switches.lower(method);
        this.annotations = new LoopAnnotations(this.method);
        this.lineAt = lines(this.method);
        readParams();
        this.cfg = Cfg.build(owner.name, this.method);
    }

    /** Reads {@code method} of {@code owner}; throws {@link Unsupported} for constructs outside the subset. */
    public static MethodBody read(ClassNode owner, MethodNode method) {
        return read(owner, method, false);
    }

    /**
     * As {@link #read(ClassNode, MethodNode)}, adding to {@code objects} the index of each parameter the method uses
     * as an object: one whose fields it reads ({@code b.data}) or that it holds in a local (the receiver of an
     * inlined method); a call must check that each is not null.
     */
    public static MethodBody read(ClassNode owner, MethodNode method, java.util.Set<Integer> objects) {
        return read(owner, method, objects, false);
    }

    /**
     * As {@link #read(ClassNode, MethodNode, java.util.Set)}, for a method whose inlined calls include overridable
     * ones when {@code virtualCalls}: a field reached through another field holding an object is then refused, since
     * the checks made at each call cover the classes of {@code this} and of the parameters only.
     */
    public static MethodBody read(ClassNode owner, MethodNode method, java.util.Set<Integer> objects,
            boolean virtualCalls) {
        return read(owner, method, objects, virtualCalls, java.util.Map.of());
    }

    /**
     * As {@link #read(ClassNode, MethodNode, java.util.Set, boolean)}, where the nest may make objects of the classes
     * of {@code made} (those whose constructors {@link Inliner} expanded: {@link Inliner.Expanded#objects()}).
     */
    public static MethodBody read(ClassNode owner, MethodNode method, java.util.Set<Integer> objects,
            boolean virtualCalls, java.util.Map<String, java.util.List<Inliner.ObjectField>> made) {
        MethodReader r = new MethodReader(owner, method);
        r.virtualCalls = virtualCalls;
        r.objectClasses = made;
        MethodBody body = r.readBody();
        objects.addAll(r.objects);
        return body;
    }

    /**
     * As {@link #read(ClassNode, MethodNode)}; with {@code callee}, {@code method} is one to be inlined into a nest,
     * whose loops all run inside the nest's: a {@code while} loop is then as good there as a counted one.
     */
    static MethodBody read(ClassNode owner, MethodNode method, boolean callee) {
        return read(owner, method, callee, java.util.Map.of());
    }

    /** As {@link #read(ClassNode, MethodNode, boolean)}, where the nest may make objects of {@code objects}' classes. */
    static MethodBody read(ClassNode owner, MethodNode method, boolean callee,
            java.util.Map<String, java.util.List<Inliner.ObjectField>> objects) {
        MethodReader r = new MethodReader(owner, method);
        r.callee = callee;
        r.objectClasses = objects;
        return r.readBody();
    }

    private MethodBody readBody() {
        MethodReader r = this;
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
        return new MethodBody(r.owner.name, r.method.name, r.method.desc, r.isStatic(), r.owner.sourceFile, r.params,
                body);
    }

    boolean isStatic() {
        return (method.access & Opcodes.ACC_STATIC) != 0;
    }

    static int[] lines(MethodNode mn) {
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

    void readParams() {
        org.objectweb.asm.Type[] args = org.objectweb.asm.Type.getArgumentTypes(method.desc);
        int slot = isStatic() ? 0 : 1;
        for (int i = 0; i < args.length; i++) {
            params.add(new MethodBody.Param(i, slot, paramName(i, slot), args[i].getDescriptor()));
            slot += args[i].getSize();
        }
    }

    String paramName(int index, int slot) {
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
    record LoopCtx(Cfg.Block header, BitSet body, Cfg.Block follow, int[] ipdom, LoopCtx outer) {
    }

    /** How a block ends. */
    record Exit(int kind, Expr jumpCond, Cfg.Block fall, Cfg.Block target) {
        static final int FALL = 0;
        static final int COND = 1;
        static final int RETURN = 2;
    }

    /** The line of the last block executed: a break is reported there. */
    int jumpLine;

    static final String JUMP_OUT = "a jump out of a loop (a return, or a labelled break or continue)";

    /**
     * The statements from {@code from} up to {@code stop}. Inside a loop, reaching the block after the loop is a
     * {@link Stmt.Break}; a loop's own body is {@code region(header, header, ctx, true)}.
     */
    List<Stmt> region(Cfg.Block from, Cfg.Block stop, LoopCtx loop) {
        return region(from, stop, loop, false);
    }

    /** With {@code head}, {@code from} is the head of {@code loop} and the statements are its body. */
    List<Stmt> region(Cfg.Block from, Cfg.Block stop, LoopCtx loop, boolean head) {
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
            Exit e;
            try {
                e = execute(b, out);
            } catch (Unsupported u) {
                note(u, b);
                abandon(b);
                e = skipped(b);
            }
            jumpLine = lastLine(b);
            switch (e.kind) {
                case Exit.RETURN -> {
                    if (loop != null) {
                        throw new Unsupported(line(b), leaving(b));
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
                        out.add(new Stmt.If(CountedLoops.negate(e.jumpCond), then, otherwise, line));
                    }
                    b = merge == null ? stop : merge;
                }
            }
        }
        return out;
    }

    /** Where the arms of the branch ending {@code b} meet again, or null when they do not before {@code stop}. */
    Cfg.Block merge(Cfg.Block b, LoopCtx loop) {
        if (loop == null) {
            return b.ipdom;
        }
        int p = loop.ipdom[b.id];
        return p == Cfg.NEXT_ITERATION ? loop.header : p == Cfg.LEAVES ? null : cfg.blocks.get(p);
    }

    // ---------------------------------------------------------------- obstacles

    /** Every construct found outside the subset, in order; reading goes on after each where it can. */
    final List<Unsupported> obstacles = new ArrayList<>();

    /** Blocks whose operand stack on entry comes from a block that could not be read: their errors follow from it. */
    final BitSet unknownEntry = new BitSet();

    void note(Unsupported u, Cfg.Block b) {
        if (!unknownEntry.get(b.id) && obstacles.stream().noneMatch(o -> o.line() == u.line()
                && o.construct().equals(u.construct()))) {
            obstacles.add(u);
        }
    }

    /** {@code b} could not be read to its end: what its successors find on the operand stack is unknown. */
    void abandon(Cfg.Block b) {
        for (Cfg.Block s : b.succs) {
            if (s.entryStack.length > 0) {
                unknownEntry.set(s.id);
            }
        }
    }

    /** How a block that could not be read ends, from the CFG alone, so that reading can go on after it. */
    Exit skipped(Cfg.Block b) {
        return switch (b.succs.size()) {
            case 0 -> new Exit(Exit.RETURN, null, null, null);
            case 1 -> new Exit(Exit.FALL, null, b.succs.get(0), null);
            case 2 -> new Exit(Exit.COND, new Expr.Const(Type.PRED, 1), b.succs.get(0), b.succs.get(1));
            default -> throw combined(obstacles);
        };
    }

    /** One exception naming every obstacle. */
    static Unsupported combined(List<Unsupported> all) {
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
    Stmt loop(Cfg.Block header, List<Stmt> before, LoopCtx outer, Cfg.Block[] exitOut) {
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
            throw new Unsupported(lastLine(ret) > 0 ? lastLine(ret) : line, leaving(ret));
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
        Stmt.While w = CountedLoops.whileOf(stmts, line);
        if (obstacles.size() > known) {
            return w;
        }
        Var index = CountedLoops.testedIndex(w);
        LoopSpec spec = index == null ? LoopSpec.NONE : annotations.at(index.slot(), header.start);
        String why = CountedLoops.notCounted(w);
        if (why == null) {
            return CountedLoops.counted(w, before, spec);
        }
        // a method read to be inlined has no loop of the nest's own: its outermost loops run inside the caller's
        boolean top = outer == null && !callee;
        if (index != null && why.equals(CountedLoops.stepNotConstant(index)) && (top || CountedLoops.parallelClause(spec))) {
            Expr step = CountedLoops.invariantStep(w.body().get(w.body().size() - 1), index);
            Cond cond = step == null ? null : CountedLoops.condOf(w, index);
            if (cond == Cond.GT || cond == Cond.GE) {
                // a downward loop's stride is the step's magnitude
                step = step instanceof Expr.Unary u && u.op() == UnOp.NEG ? u.operand() : new Expr.Unary(UnOp.NEG, step);
            }
            if (step != null) {
                why = CountedLoops.strideProblem(w, before, index, step);
                if (why == null) {
                    return strided(w, before, spec, index, step);
                }
            }
        }
        if (top) {
            throw new Unsupported(why.startsWith("a break") ? CountedLoops.breakLine(w.body()) : line, why);
        }
        if (CountedLoops.parallelClause(spec)) {
            throw new Unsupported(line, why + ", so it cannot be the parallel loop " + spec + " asks for");
        }
        return w;
    }

    /** What leaves a loop at block {@code b} for good: a {@code throw} (Java's, on the host) or a {@code return}. */
    String leaving(Cfg.Block b) {
        for (int i = b.start; i <= b.end && i < method.instructions.size(); i++) {
            if (method.instructions.get(i).getOpcode() == Opcodes.ATHROW) {
                return "a throw inside a loop (the nest runs on the host, where Java throws it)";
            }
        }
        return "a return inside a loop";
    }

    /**
     * {@code w}, which {@link #strideProblem} accepts, as the counted loop over its iterations ({@link Stmt.Stride});
     * its start, the last statement of {@code before}, moves into the stride.
     */
    Stmt.For strided(Stmt.While w, List<Stmt> before, LoopSpec spec, Var v, Expr step) {
        Expr.Compare c = (Expr.Compare) w.cond();
        Expr bound = c.left() instanceof Expr.Local l && l.var().equals(v) ? c.right() : c.left();
        Expr lower = ((Stmt.Assign) before.remove(before.size() - 1)).value();
        Stmt.Stride stride = new Stmt.Stride(v, lower, CountedLoops.condOf(w, v), bound, step);
        Var k = new Var(method.maxLocals + temps, Type.I32, v.name() + "_iter");
        temps++;
        List<Stmt> body = new ArrayList<>();
        body.add(new Stmt.Assign(v, stride.index(new Expr.Local(k)), w.line()));
        body.addAll(w.body().subList(0, w.body().size() - 1));
        return new Stmt.For(k, Expr.Const.i32(0), Cond.LT, stride.tripCount(), 1, spec, body, w.line(), stride);
    }

    int line(Cfg.Block b) {
        for (int i = b.start; i < b.end; i++) {
            if (lineAt[i] > 0) {
                return lineAt[i];
            }
        }
        return 0;
    }

    int lastLine(Cfg.Block b) {
        return lineAt[b.end - 1];
    }

    // ---------------------------------------------------------------- symbolic execution of one block

    /**
     * Runs block {@code b}: its instructions on a {@link Frame} through the {@link SymbolicInterpreter}, whose
     * statements go to {@code out}; the block's jump or return, which shape the structure, are read here.
     */
    Exit execute(Cfg.Block b, List<Stmt> out) {
        Frame<Sym> frame = new Frame<>(method.maxLocals, method.maxStack);
        for (int k = 0; k < method.maxLocals; k++) {
            frame.setLocal(k, Sym.EMPTY);
        }
        List<Object> stack = new FrameStack(frame);
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
                    cond = ops.temp(cond, out, line);
                }
                carry(stack, out, line, cfg.blockAt[b.end], target);
                return new Exit(Exit.COND, cond, cfg.blockAt[b.end], target);
            }
            if (op == Opcodes.RETURN) {
                return new Exit(Exit.RETURN, null, null, null);
            }
            if (op >= Opcodes.IRETURN && op <= Opcodes.DRETURN) {
                Expr value = OperandStack.popExpr(stack, line);
                if (!stack.isEmpty()) {
                    throw new Unsupported(line, "a return with values left on the operand stack");
                }
                return new Exit(Exit.RETURN, value, null, null);
            }
            try {
                interpreter.execute(frame, stack, insn, out, line);
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
    final Map<Long, Object> carriedRefs = new HashMap<>();

    int stackBase() {
        return method.maxLocals + 8192;
    }

    /** The variable that holds stack slot {@code depth} where branches meet (a ?: value, a boolean). */
    Var stackVar(int depth, Type t) {
        return new Var(stackBase() + depth, t, "stack" + depth);
    }

    static Type kindType(char kind) {
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
    void carry(List<Object> stack, List<Stmt> out, int line, Cfg.Block to, Cfg.Block alsoTo) {
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
                    values.set(k, v instanceof Row r ? new Row(r.array(), ops.temp(e, out, line)) : ops.temp(e, out, line));
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
            if (v instanceof Obj || v instanceof Fresh) {
                // an object carried to the next block (a ?: between objects) goes through a local of its depth
                String cls = v instanceof Obj o ? o.cls() : ((Fresh) v).cls();
                int slot = stackBase() + k;
                acc.storeObject(slot, cls, v instanceof Obj o ? o : null, values, out, line, null);
                v = new Obj(cls, slot);
                values.set(k, v);
            }
            Object key = v instanceof Row r ? new Row(r.array(), null) : v;
            for (Cfg.Block succ : new Cfg.Block[] {to, alsoTo}) {
                if (succ == null) {
                    continue;
                }
                Object old = carriedRefs.putIfAbsent(succ.id * 1024L + k, key);
                if (old != null && !old.equals(key)) {
                    throw new Unsupported(line, v instanceof Obj ? "a ?: that chooses between objects of two classes"
                            : "a ?: that chooses between two arrays");
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

    Expr branchCondition(int op, List<Object> stack, int line) {
        switch (op) {
            case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE -> {
                Expr v = OperandStack.popExpr(stack, line);
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
                Expr r = OperandStack.popExpr(stack, line);
                Expr l = OperandStack.popExpr(stack, line);
                return new Expr.Compare(cond(op - Opcodes.IF_ICMPEQ), l, r, false);
            }
            case Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE -> throw new Unsupported(line, "a comparison of references");
            case Opcodes.IFNULL, Opcodes.IFNONNULL -> throw new Unsupported(line, "a null test");
            default -> throw new Unsupported(line, "the instruction " + op);
        }
    }

    static Cond cond(int k) {
        return switch (k) {
            case 0 -> Cond.EQ;
            case 1 -> Cond.NE;
            case 2 -> Cond.LT;
            case 3 -> Cond.GE;
            case 4 -> Cond.GT;
            default -> Cond.LE;
        };
    }

    static boolean holds(Cond c, int x) {
        return switch (c) {
            case EQ -> x == 0;
            case NE -> x != 0;
            case LT -> x < 0;
            case GE -> x >= 0;
            case GT -> x > 0;
            case LE -> x <= 0;
        };
    }

    static Expr constant(Object cst, int line) {
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

    static Type loadType(int op) {
        return switch (op) {
            case Opcodes.ILOAD -> Type.I32;
            case Opcodes.LLOAD -> Type.I64;
            case Opcodes.FLOAD -> Type.F32;
            default -> Type.F64;
        };
    }

    Var var(int slot, Type type, AbstractInsnNode at) {
        return new Var(slot, type, acc.localName(slot, at));
    }

    /** The most elements a private array may have. */
    public static final int MAX_PRIVATE = 32;

    int privates;
    /** The last access id given: each load and store the method reads is an access of its own, numbered from 1. */
    private int accesses;

    /** A new access id for a load or store. */
    int nextAccess() {
        return ++accesses;
    }

}
