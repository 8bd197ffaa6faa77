package org.acc4j.compiler.jvm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Tiling;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/**
 * Turns one region's kernel IR into a class extending {@link JvmKernel}: Java's own instructions for Java's
 * arithmetic, a JVM local per IR variable (no boxing), the nest's loops as counted {@code int} loops where the IR has
 * a parallel level, so that C2 compiles them as it compiles the plain Java loops. Array accesses whose bounds the host
 * did not prove go through {@link JvmKernel}'s checked helpers (Java's exception and message, whatever the JIT does
 * with implicit exceptions); integer division tests its divisor explicitly for the same reason.
 */
final class JvmEmitter extends OrderEmitter {
    private final Region region;
    /** The arrays the region uses, in the order of the {@code arrays} argument. */
    final List<ArrayRef> arrays;
    /** The scalars the host passes, in the order of the {@code scalars} argument (then {@link #fields}). */
    final List<Var> inputs;
    /** The primitive fields the region reads, after {@link #inputs} in the {@code scalars} argument. */
    final List<Expr.FieldValue> fields;
    /** Whether the outermost parallel level is the nest's loop, so that it is cut into chunks (never for a scan). */
    final boolean chunked;

    private final Set<Var> vars = new LinkedHashSet<>();
    private final Deque<Label> breaks = new ArrayDeque<>();
    private final int scalarsSlot = 2;
    private final int arraysSlot = 1;

    JvmEmitter(Region region, List<Var> params) {
        this(region, params, null);
    }

    /**
     * @param matmul the nest's matmul shape ({@link org.acc4j.compiler.pass.Tiling#matmul}) when the compiler found
     *     one, else null: the proven variant then accumulates rows of c along k ({@link OrderEmitter#matmulRows})
     */
    JvmEmitter(Region region, List<Var> params, Tiling.Matmul matmul) {
        this.region = region;
        Set<ArrayRef> a = new LinkedHashSet<>();
        Map<ArrayRef.Field, Expr.FieldValue> f = new LinkedHashMap<>();
        RegionUses.collect(region.prologue(), a, f);
        RegionUses.collect(List.of(region.loop()), a, f);
        this.arrays = List.copyOf(a);
        this.fields = List.copyOf(f.values());
        List<Var> in = new ArrayList<>(params);
        for (Var v : region.hostVars()) {
            if (!in.contains(v)) {
                in.add(v);
            }
        }
        this.inputs = List.copyOf(in);
        vars.addAll(inputs);
        for (Reduction r : region.reductions()) {
            vars.add(r.var());
        }
        Mapping m = region.mapping();
        // a scan carries its running value from one iteration to the next: it runs as one chunk, in Java's order
        this.chunked = m != null && !m.levels().isEmpty() && m.levels().get(0).outer() == region.loop()
                && region.scan() == null;
        this.matmul = chunked && hostMatmul(matmul, m) ? matmul : null;
    }

    /** The matmul shape the proven variant runs by rows, or null. */
    private final Tiling.Matmul matmul;

    /**
     * How the proven variant orders the nest when not as written ({@code j | k | i}, or the matmul's rows), else null:
     * for the report.
     */
    String orderNote;

    /**
     * The loop order of the proven variant when it reorders the nest ({@link LoopOrder}), else null; set by
     * {@link #emit} only when that variant has nothing that may throw.
     */
    List<Mapping.Level> order;

    /** The class's bytes, named {@code name} (internal form, in {@link JvmKernel}'s package). */
    byte[] emit(String name, Set<Integer> provenNodes) {
        if (matmul != null) {
            orderNote = matmul.i().index().name() + " | " + matmul.k().index().name() + " | "
                    + matmul.j().index().name() + ", a row of " + matmul.c().array().name()
                    + " accumulated along " + matmul.k().index().name() + " (each element in Java's order)";
            return emitClass(name, provenNodes);
        }
        List<Mapping.Level> reordered = chunked ? LoopOrder.of(region) : null;
        if (reordered != null) {
            order = reordered;
            byte[] bytes = emitClass(name, provenNodes);
            if (!mayThrow[1]) {
                orderNote = LoopOrder.describe(reordered) + " (the vector loop innermost)";
                return bytes;
            }
            // an access or division that may throw: Java's order of the iterations decides which exception is raised
            order = null;
            mayThrow[0] = false;
            mayThrow[1] = false;
        }
        return emitClass(name, provenNodes);
    }

    private byte[] emitClass(String name, Set<Integer> provenNodes) {
        currentClass = name;
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return "java/lang/Object";
            }
        };
        cw.visit(V17, ACC_PUBLIC | ACC_FINAL | ACC_SUPER, name, null, BASE, null);
        MethodVisitor init = cw.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(ALOAD, 0);
        init.visitMethodInsn(INVOKESPECIAL, BASE, "<init>", "()V", false);
        init.visitInsn(RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();

        // trip(Object[] arrays, long[] scalars)
        mv = cw.visitMethod(ACC_PUBLIC, "trip", "([Ljava/lang/Object;[J)J", null, null);
        mv.visitCode();
        next = 3;
        variant = 0;
        proven = Collections.emptySet();
        prologue();
        if (chunked) {
            Mapping.Level level = region.mapping().levels().get(0);
            push(1L);
            for (Stmt.For f : level.loops()) {
                tripOf(f);
                mv.visitMethodInsn(INVOKESTATIC, MATH, "multiplyExact", "(JJ)J", false);
            }
        } else {
            push(1L);
        }
        mv.visitInsn(LRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        // tripProven(Object[] arrays, long[] scalars): the proven variant's outermost level
        mv = cw.visitMethod(ACC_PUBLIC, "tripProven", "([Ljava/lang/Object;[J)J", null, null);
        mv.visitCode();
        if (order == null) {
            mv.visitVarInsn(ALOAD, 0);
            mv.visitVarInsn(ALOAD, 1);
            mv.visitVarInsn(ALOAD, 2);
            mv.visitMethodInsn(INVOKEVIRTUAL, currentClass, "trip", "([Ljava/lang/Object;[J)J", false);
        } else {
            next = 3;
            variant = 0;
            proven = Collections.emptySet();
            prologue();
            tripOf(order.get(0).outer());
        }
        mv.visitInsn(LRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        // chunk(boolean proven, Object[] arrays, long[] scalars, long lo, long hi, long[] partials)
        mv = cw.visitMethod(ACC_PUBLIC, "chunk", "(Z[Ljava/lang/Object;[JJJ[J)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(ILOAD, 1);
        Label checked = new Label();
        mv.visitJumpInsn(IFEQ, checked);
        shift(true);
        mv.visitInsn(RETURN);
        mv.visitLabel(checked);
        shift(false);
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        for (int v = 0; v < 2; v++) {
            variant = v;
            proven = v == 1 ? provenNodes : Collections.emptySet();
            mv = cw.visitMethod(ACC_PRIVATE, v == 1 ? "runProven" : "runChecked", "([Ljava/lang/Object;[JJJ[J)V", null,
                    null);
            mv.visitCode();
            next = 8;
            run();
            mv.visitInsn(RETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** chunk's body: calls the variant with the arguments after {@code proven}. */
    private void shift(boolean provenVariant) {
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ALOAD, 2);
        mv.visitVarInsn(ALOAD, 3);
        mv.visitVarInsn(LLOAD, 4);
        mv.visitVarInsn(LLOAD, 6);
        mv.visitVarInsn(ALOAD, 8);
        mv.visitMethodInsn(INVOKESPECIAL, currentClass, provenVariant ? "runProven" : "runChecked",
                "([Ljava/lang/Object;[JJJ[J)V", false);
    }

    private String currentClass;

    // ------------------------------------------------------------------ the method bodies

    /** Locals: arrays and inputs unpacked, every other variable zeroed, then the prologue. */
    private void prologue() {
        slots.clear();
        arraySlots.clear();
        fieldSlots.clear();
        for (int i = 0; i < arrays.size(); i++) {
            ArrayRef a = arrays.get(i);
            mv.visitVarInsn(ALOAD, arraysSlot);
            push(i);
            mv.visitInsn(AALOAD);
            mv.visitTypeInsn(CHECKCAST, arrayDesc(a));
            int s = next++;
            mv.visitVarInsn(ASTORE, s);
            arraySlots.put(a, s);
        }
        Set<Var> all = new LinkedHashSet<>(vars);
        RegionUses.collectVars(region.prologue(), all);
        RegionUses.collectVars(List.of(region.loop()), all);
        for (Var v : all) {
            slotOf(v);
        }
        for (Var v : all) {
            if (!inputs.contains(v)) {
                zero(v.type());
                store(v);
            }
        }
        for (int i = 0; i < inputs.size(); i++) {
            unpack(i, inputs.get(i).type());
            store(inputs.get(i));
        }
        for (int i = 0; i < fields.size(); i++) {
            Expr.FieldValue f = fields.get(i);
            unpack(inputs.size() + i, f.type());
            int s = next;
            next += f.type().isWide() ? 2 : 1;
            mv.visitVarInsn(storeOp(f.type()), s);
            fieldSlots.put(f.field(), s);
        }
        statements(region.devicePrologue());
    }

    private void run() {
        prologue();
        for (Reduction r : region.reductions()) {
            constBits(r.type(), r.identityBits());
            store(r.var());
        }
        statement(region.loop());
        List<Reduction> reds = region.reductions();
        for (int j = 0; j < reds.size(); j++) {
            mv.visitVarInsn(ALOAD, 7);
            push(j);
            load(reds.get(j).var());
            toBits(reds.get(j).type());
            mv.visitInsn(LASTORE);
        }
    }

    private void unpack(int i, Type t) {
        mv.visitVarInsn(ALOAD, scalarsSlot);
        push(i);
        mv.visitInsn(LALOAD);
        switch (t) {
            case I32, PRED -> mv.visitInsn(L2I);
            case I64 -> { }
            case F32 -> {
                mv.visitInsn(L2I);
                mv.visitMethodInsn(INVOKESTATIC, "java/lang/Float", "intBitsToFloat", "(I)F", false);
            }
            case F64 -> mv.visitMethodInsn(INVOKESTATIC, "java/lang/Double", "longBitsToDouble", "(J)D", false);
        }
    }

    private void toBits(Type t) {
        switch (t) {
            case I32, PRED -> {
                mv.visitInsn(I2L);
                push(0xFFFFFFFFL);
                mv.visitInsn(LAND);
            }
            case I64 -> { }
            case F32 -> {
                mv.visitMethodInsn(INVOKESTATIC, "java/lang/Float", "floatToRawIntBits", "(F)I", false);
                mv.visitInsn(I2L);
                push(0xFFFFFFFFL);
                mv.visitInsn(LAND);
            }
            case F64 -> mv.visitMethodInsn(INVOKESTATIC, "java/lang/Double", "doubleToRawLongBits", "(D)J", false);
        }
    }

    // ------------------------------------------------------------------ statements

    @Override
    void statements(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            statement(s);
        }
    }

    private void statement(Stmt s) {
        if (s instanceof Stmt.Assign a) {
            expr(a.value());
            convert(a.value().type(), a.var().type());
            store(a.var());
        } else if (s instanceof Stmt.Store st) {
            store(st);
        } else if (s instanceof Stmt.Atomic at) {
            atomic(at);
        } else if (s instanceof Stmt.If i) {
            Label otherwise = new Label();
            Label end = new Label();
            condition(i.cond(), otherwise);
            statements(i.then());
            mv.visitJumpInsn(GOTO, end);
            mv.visitLabel(otherwise);
            statements(i.otherwise());
            mv.visitLabel(end);
        } else if (s instanceof Stmt.Break) {
            if (breaks.isEmpty()) {
                throw new Unsupported("a break outside a while loop (line " + s.line() + ")");
            }
            mv.visitJumpInsn(GOTO, breaks.peek());
        } else if (s instanceof Stmt.While w) {
            Label test = new Label();
            Label end = new Label();
            mv.visitLabel(test);
            condition(w.cond(), end);
            breaks.push(end);
            statements(w.body());
            breaks.pop();
            mv.visitJumpInsn(GOTO, test);
            mv.visitLabel(end);
        } else if (s instanceof Stmt.For f) {
            Mapping.Level level = region.mapping() == null ? null : region.mapping().levelOf(f);
            if (level != null && level.outer() == f) {
                if (chunked && level == region.mapping().levels().get(0) && variant == 1 && matmul != null) {
                    matmulRows(matmul);
                } else if (chunked && level == region.mapping().levels().get(0) && variant == 1 && order != null) {
                    reordered(order, region.mapping().levels());
                } else if (chunked && level == region.mapping().levels().get(0)) {
                    chunkLevel(level);
                } else {
                    parallel(level);
                }
            } else if (level != null) {
                throw new Unsupported("a collapsed loop reached outside its level (line " + f.line() + ")");
            } else {
                sequential(f);
            }
        } else if (s instanceof Stmt.Return r) {
            throw new Unsupported("a return inside the nest (line " + r.line() + ")");
        } else {
            throw new Unsupported("the statement " + s.getClass().getSimpleName() + " (line " + s.line() + ")");
        }
    }

    /** Java's loop: the bound tested before each iteration, the index stepped with Java's wrapping arithmetic. */
    private void sequential(Stmt.For f) {
        Type t = f.index().type();
        expr(f.lower());
        convert(f.lower().type(), t);
        store(f.index());
        Label test = new Label();
        Label end = new Label();
        mv.visitLabel(test);
        condition(new Expr.Compare(f.cond(), new Expr.Local(f.index()), f.bound(), false), end);
        statements(f.body());
        load(f.index());
        if (t == Type.I32) {
            push((int) f.step());
            mv.visitInsn(IADD);
        } else {
            push(f.step());
            mv.visitInsn(LADD);
        }
        store(f.index());
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(end);
    }

    /**
     * Pushes the trip count ({@code long}) of a parallel loop, its bounds evaluated now: {@link JvmKernel#tripCount}'s
     * arithmetic written inline for the loop's comparison and constant step (a {@code !=} loop calls it), so that a
     * level inside another costs no call per run of the outer one.
     */
    private void tripOf(Stmt.For f) {
        exprLong(f.lower());
        if (f.cond() == Cond.NE || f.cond() == Cond.EQ) {
            push(f.cond().ordinal());
            exprLong(f.bound());
            push(f.step());
            mv.visitMethodInsn(INVOKESTATIC, BASE, "tripCount", "(JIJJ)J", false);
            return;
        }
        int lower = newLong();
        int bound = newLong();
        mv.visitVarInsn(LSTORE, lower);
        exprLong(f.bound());
        mv.visitVarInsn(LSTORE, bound);
        long step = f.step();
        boolean up = f.cond() == Cond.LT || f.cond() == Cond.LE;
        Label none = new Label();
        Label end = new Label();
        // runs at all: lower < bound, lower <= bound, lower > bound or lower >= bound
        mv.visitVarInsn(LLOAD, lower);
        mv.visitVarInsn(LLOAD, bound);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(switch (f.cond()) {
            case LT -> IFGE;
            case LE -> IFGT;
            case GT -> IFLE;
            default -> IFLT;
        }, none);
        // the span from the first index to the bound, in the direction of the loop
        mv.visitVarInsn(LLOAD, up ? bound : lower);
        mv.visitVarInsn(LLOAD, up ? lower : bound);
        mv.visitInsn(LSUB);
        boolean strict = f.cond() == Cond.LT || f.cond() == Cond.GT;
        long divisor = up ? step : -step;
        if (strict) {
            // (span + |step| - 1) / |step|, as JvmKernel.tripCount writes it
            if (divisor != 1) {
                push(divisor - 1);
                mv.visitInsn(LADD);
            }
            if (divisor != 1) {
                push(divisor);
                mv.visitInsn(LDIV);
            }
        } else {
            if (divisor != 1) {
                push(divisor);
                mv.visitInsn(LDIV);
            }
            push(1L);
            mv.visitInsn(LADD);
        }
        mv.visitJumpInsn(GOTO, end);
        mv.visitLabel(none);
        push(0L);
        mv.visitLabel(end);
    }

    /** Lowers and trip counts of a level's loops into new locals: {lower0, trip0, lower1, trip1, ...}. */
    private int[] bounds(Mapping.Level level) {
        List<Stmt.For> loops = level.loops();
        int[] out = new int[loops.size() * 2];
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For f = loops.get(q);
            out[2 * q] = newLong();
            out[2 * q + 1] = newLong();
            exprLong(f.lower());
            mv.visitVarInsn(LSTORE, out[2 * q]);
            tripOf(f);
            mv.visitVarInsn(LSTORE, out[2 * q + 1]);
        }
        return out;
    }

    /** {@code index = lower + t * step} for a loop, {@code t} a long local. */
    private void setIndex(Stmt.For f, int lowerSlot, int tSlot) {
        mv.visitVarInsn(LLOAD, lowerSlot);
        mv.visitVarInsn(LLOAD, tSlot);
        push(f.step());
        mv.visitInsn(LMUL);
        mv.visitInsn(LADD);
        if (f.index().type() == Type.I32) {
            mv.visitInsn(L2I);
        }
        store(f.index());
    }

    /**
     * The innermost loop of a level over {@code n} (an int local) iterations from {@code start} (a long local, the
     * iteration's number from the loop's first): {@code int} counted. An {@code int} index stepping by one towards a
     * strict bound is itself the counter, from {@code base} to {@code base + n} (at most the bound, so it cannot wrap),
     * as javac writes the loop, so that C2 sees the plain Java loop's induction variable in every subscript; any other
     * loop counts {@code c} from 0 to {@code n} and sets the index to {@code base + c * step}.
     */
    private void innerRun(Stmt.For f, int lowerSlot, int startSlot, int nSlot, List<Stmt> body) {
        int base = f.index().type() == Type.I32 ? newInt() : newLong();
        mv.visitVarInsn(LLOAD, lowerSlot);
        mv.visitVarInsn(LLOAD, startSlot);
        push(f.step());
        mv.visitInsn(LMUL);
        mv.visitInsn(LADD);
        if (f.index().type() == Type.I32) {
            mv.visitInsn(L2I);
            mv.visitVarInsn(ISTORE, base);
        } else {
            mv.visitVarInsn(LSTORE, base);
        }
        boolean upByOne = f.cond() == Cond.LT && f.step() == 1;
        boolean downByOne = f.cond() == Cond.GT && f.step() == -1;
        if (f.index().type() == Type.I32 && (upByOne || downByOne)) {
            int end = newInt();
            mv.visitVarInsn(ILOAD, base);
            mv.visitVarInsn(ILOAD, nSlot);
            mv.visitInsn(upByOne ? IADD : ISUB);
            mv.visitVarInsn(ISTORE, end);
            Label test = new Label();
            Label done = new Label();
            mv.visitLabel(test);
            mv.visitVarInsn(ILOAD, base);
            mv.visitVarInsn(ILOAD, end);
            mv.visitJumpInsn(upByOne ? IF_ICMPGE : IF_ICMPLE, done);
            mv.visitVarInsn(ILOAD, base);
            store(f.index());
            statements(body);
            mv.visitIincInsn(base, (int) f.step());
            mv.visitJumpInsn(GOTO, test);
            mv.visitLabel(done);
            return;
        }
        int c = newInt();
        push(0);
        mv.visitVarInsn(ISTORE, c);
        Label test = new Label();
        Label end = new Label();
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, c);
        mv.visitVarInsn(ILOAD, nSlot);
        mv.visitJumpInsn(IF_ICMPGE, end);
        if (f.index().type() == Type.I32) {
            mv.visitVarInsn(ILOAD, base);
            mv.visitVarInsn(ILOAD, c);
            if (f.step() != 1) {
                push((int) f.step());
                mv.visitInsn(IMUL);
            }
            mv.visitInsn(IADD);
        } else {
            mv.visitVarInsn(LLOAD, base);
            mv.visitVarInsn(ILOAD, c);
            mv.visitInsn(I2L);
            if (f.step() != 1) {
                push(f.step());
                mv.visitInsn(LMUL);
            }
            mv.visitInsn(LADD);
        }
        store(f.index());
        statements(body);
        mv.visitIincInsn(c, 1);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(end);
    }

    /**
     * Whether a loop is an {@code int} index stepping by one towards a strict {@code int} bound: its index never wraps
     * (every value lies between the lower bound and the bound), so Java's own loop runs exactly its trip count.
     */
    static boolean unitStep(Stmt.For f) {
        boolean up = f.cond() == Cond.LT && f.step() == 1;
        boolean down = f.cond() == Cond.GT && f.step() == -1;
        return (up || down) && f.index().type() == Type.I32 && f.lower().type() == Type.I32
                && f.bound().type() == Type.I32;
    }

    /**
     * A {@link #unitStep} parallel level as javac writes the loop: the bound evaluated once (as the kernel's trip count
     * is), a counter from the lower bound to it that the index copies, so that C2 sees the plain Java loop.
     */
    private void plainLoop(Stmt.For f, List<Stmt> body) {
        boolean up = f.cond() == Cond.LT;
        int k = newInt();
        int bound = newInt();
        expr(f.lower());
        mv.visitVarInsn(ISTORE, k);
        expr(f.bound());
        mv.visitVarInsn(ISTORE, bound);
        Label test = new Label();
        Label end = new Label();
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, k);
        mv.visitVarInsn(ILOAD, bound);
        mv.visitJumpInsn(up ? IF_ICMPGE : IF_ICMPLE, end);
        mv.visitVarInsn(ILOAD, k);
        store(f.index());
        statements(body);
        mv.visitIincInsn(k, up ? 1 : -1);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(end);
    }

    /** An inner parallel level (or an outermost one not chunked): its loops in order, as the kernel runs them. */
    private void parallel(Mapping.Level level) {
        List<Stmt.For> loops = level.loops();
        if (loops.size() == 1 && unitStep(loops.get(0))) {
            plainLoop(loops.get(0), level.inner().body());
            return;
        }
        int[] b = bounds(level);
        int last = loops.size() - 1;
        Label[] ends = new Label[last];
        Label[] tests = new Label[last];
        int[] ts = new int[last];
        for (int q = 0; q < last; q++) {
            ts[q] = newLong();
            push(0L);
            mv.visitVarInsn(LSTORE, ts[q]);
            tests[q] = new Label();
            ends[q] = new Label();
            mv.visitLabel(tests[q]);
            mv.visitVarInsn(LLOAD, ts[q]);
            mv.visitVarInsn(LLOAD, b[2 * q + 1]);
            mv.visitInsn(LCMP);
            mv.visitJumpInsn(IFGE, ends[q]);
            setIndex(loops.get(q), b[2 * q], ts[q]);
        }
        // the innermost loop in runs of at most 2^31 - 1 iterations
        int done = newLong();
        int n = newInt();
        push(0L);
        mv.visitVarInsn(LSTORE, done);
        Label runs = new Label();
        Label runsEnd = new Label();
        mv.visitLabel(runs);
        mv.visitVarInsn(LLOAD, done);
        mv.visitVarInsn(LLOAD, b[2 * last + 1]);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFGE, runsEnd);
        mv.visitVarInsn(LLOAD, b[2 * last + 1]);
        mv.visitVarInsn(LLOAD, done);
        mv.visitInsn(LSUB);
        push((long) Integer.MAX_VALUE);
        mv.visitMethodInsn(INVOKESTATIC, MATH, "min", "(JJ)J", false);
        mv.visitInsn(L2I);
        mv.visitVarInsn(ISTORE, n);
        innerRun(loops.get(last), b[2 * last], done, n, level.inner().body());
        mv.visitVarInsn(LLOAD, done);
        mv.visitVarInsn(ILOAD, n);
        mv.visitInsn(I2L);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, done);
        mv.visitJumpInsn(GOTO, runs);
        mv.visitLabel(runsEnd);
        for (int q = last - 1; q >= 0; q--) {
            mv.visitVarInsn(LLOAD, ts[q]);
            push(1L);
            mv.visitInsn(LADD);
            mv.visitVarInsn(LSTORE, ts[q]);
            mv.visitJumpInsn(GOTO, tests[q]);
            mv.visitLabel(ends[q]);
        }
    }

    /**
     * The outermost parallel level over the chunk's iterations {@code [lo, hi)} of its collapsed loops' linear order:
     * each run of the innermost collapsed loop decodes its start once, then counts in {@code int}.
     */
    private void chunkLevel(Mapping.Level level) {
        List<Stmt.For> loops = level.loops();
        int[] b = bounds(level);
        int last = loops.size() - 1;
        int it = newLong();
        int rest = newLong();
        int n = newInt();
        int tl = newLong();
        mv.visitVarInsn(LLOAD, 3);
        mv.visitVarInsn(LSTORE, it);
        Label runs = new Label();
        Label end = new Label();
        mv.visitLabel(runs);
        mv.visitVarInsn(LLOAD, it);
        mv.visitVarInsn(LLOAD, 5);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFGE, end);
        mv.visitVarInsn(LLOAD, it);
        mv.visitVarInsn(LSTORE, rest);
        int t = newLong();
        // the innermost collapsed loop's position: rest % trip (when there are outer ones)
        if (last > 0) {
            mv.visitVarInsn(LLOAD, rest);
            mv.visitVarInsn(LLOAD, b[2 * last + 1]);
            mv.visitInsn(LREM);
            mv.visitVarInsn(LSTORE, tl);
            mv.visitVarInsn(LLOAD, rest);
            mv.visitVarInsn(LLOAD, b[2 * last + 1]);
            mv.visitInsn(LDIV);
            mv.visitVarInsn(LSTORE, rest);
            for (int q = last - 1; q >= 0; q--) {
                if (q > 0) {
                    mv.visitVarInsn(LLOAD, rest);
                    mv.visitVarInsn(LLOAD, b[2 * q + 1]);
                    mv.visitInsn(LREM);
                    mv.visitVarInsn(LSTORE, t);
                    mv.visitVarInsn(LLOAD, rest);
                    mv.visitVarInsn(LLOAD, b[2 * q + 1]);
                    mv.visitInsn(LDIV);
                    mv.visitVarInsn(LSTORE, rest);
                    setIndex(loops.get(q), b[2 * q], t);
                } else {
                    setIndex(loops.get(0), b[0], rest);
                }
            }
        } else {
            mv.visitVarInsn(LLOAD, rest);
            mv.visitVarInsn(LSTORE, tl);
        }
        // n = min(trip_last - tl, hi - it)
        mv.visitVarInsn(LLOAD, b[2 * last + 1]);
        mv.visitVarInsn(LLOAD, tl);
        mv.visitInsn(LSUB);
        mv.visitVarInsn(LLOAD, 5);
        mv.visitVarInsn(LLOAD, it);
        mv.visitInsn(LSUB);
        mv.visitMethodInsn(INVOKESTATIC, MATH, "min", "(JJ)J", false);
        mv.visitInsn(L2I);
        mv.visitVarInsn(ISTORE, n);
        innerRun(loops.get(last), b[2 * last], tl, n, level.inner().body());
        mv.visitVarInsn(LLOAD, it);
        mv.visitVarInsn(ILOAD, n);
        mv.visitInsn(I2L);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, it);
        mv.visitJumpInsn(GOTO, runs);
        mv.visitLabel(end);
    }
}
