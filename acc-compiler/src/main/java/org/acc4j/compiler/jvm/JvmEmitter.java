package org.acc4j.compiler.jvm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Turns one region's kernel IR into a class extending {@link JvmKernel}: Java's own instructions for Java's
 * arithmetic, a JVM local per IR variable (no boxing), the nest's loops as counted {@code int} loops where the IR has
 * a parallel level, so that C2 compiles them as it compiles the plain Java loops. Array accesses whose bounds the host
 * did not prove go through {@link JvmKernel}'s checked helpers (Java's exception and message, whatever the JIT does
 * with implicit exceptions); integer division tests its divisor explicitly for the same reason.
 */
final class JvmEmitter implements Opcodes {
    /** Thrown for IR this backend does not translate: the nest then runs as plain Java, with this reason. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String message) {
            super(message);
        }
    }

    static final String BASE = JvmKernel.class.getName().replace('.', '/');
    private static final String MATH = "java/lang/Math";
    private static final String ACC_MATH = org.acc4j.templates.math.AccMath.class.getName().replace('.', '/');
    private static final String ACC = org.acc4j.Acc.class.getName().replace('.', '/');

    private final Region region;
    /** The arrays the region uses, in the order of the {@code arrays} argument. */
    final List<ArrayRef> arrays;
    /** The scalars the host passes, in the order of the {@code scalars} argument (then {@link #fields}). */
    final List<Var> inputs;
    /** The primitive fields the region reads, after {@link #inputs} in the {@code scalars} argument. */
    final List<Expr.FieldValue> fields;
    /** Whether the outermost parallel level is the nest's loop, so that it is cut into chunks. */
    final boolean chunked;
    /** Whether each variant ({@code [checked, proven]}) contains a check that may throw. */
    final boolean[] mayThrow = new boolean[2];

    private final Set<Var> vars = new LinkedHashSet<>();
    private final Map<Var, Integer> slots = new HashMap<>();
    private final Map<ArrayRef, Integer> arraySlots = new HashMap<>();
    private final Map<ArrayRef.Field, Integer> fieldSlots = new HashMap<>();
    private final Deque<Label> breaks = new ArrayDeque<>();
    private MethodVisitor mv;
    private int next;
    private Set<Object> proven = Collections.emptySet();
    private int variant;
    private final int scalarsSlot = 2;
    private final int arraysSlot = 1;

    JvmEmitter(Region region, List<Var> params) {
        this.region = region;
        Set<ArrayRef> a = new LinkedHashSet<>();
        Map<ArrayRef.Field, Expr.FieldValue> f = new LinkedHashMap<>();
        collect(region.prologue(), a, f);
        collect(List.of(region.loop()), a, f);
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
        this.chunked = m != null && !m.levels().isEmpty() && m.levels().get(0).outer() == region.loop();
    }

    /** The class's bytes, named {@code name} (internal form, in {@link JvmKernel}'s package). */
    byte[] emit(String name, Set<Object> provenNodes) {
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
        collectVars(region.prologue(), all);
        collectVars(List.of(region.loop()), all);
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

    private void statements(List<Stmt> stmts) {
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
                if (chunked && level == region.mapping().levels().get(0)) {
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

    /** Pushes the trip count ({@code long}) of a parallel loop, its bounds evaluated now. */
    private void tripOf(Stmt.For f) {
        exprLong(f.lower());
        push(f.cond().ordinal());
        exprLong(f.bound());
        push(f.step());
        mv.visitMethodInsn(INVOKESTATIC, BASE, "tripCount", "(JIJJ)J", false);
    }

    private void exprLong(Expr e) {
        expr(e);
        convert(e.type(), Type.I64);
    }

    private int newLong() {
        int s = next;
        next += 2;
        return s;
    }

    private int newInt() {
        return next++;
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
     * iteration's number from the loop's first): {@code int} counted, the index {@code base + c * step}.
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

    /** An inner parallel level (or an outermost one not chunked): its loops in order, as the kernel runs them. */
    private void parallel(Mapping.Level level) {
        List<Stmt.For> loops = level.loops();
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

    // ------------------------------------------------------------------ memory

    private boolean proven(Object node) {
        return proven.contains(node);
    }

    /** Pushes the array (or its row) an access uses; the row checked unless {@code unchecked}. */
    private void arrayOf(ArrayRef a, Expr row, boolean unchecked) {
        mv.visitVarInsn(ALOAD, arraySlots.get(a));
        if (row != null) {
            expr(row);
            if (unchecked) {
                mv.visitInsn(AALOAD);
            } else {
                mayThrow[variant] = true;
                mv.visitMethodInsn(INVOKESTATIC, BASE, "row", "([Ljava/lang/Object;I)Ljava/lang/Object;", false);
            }
            mv.visitTypeInsn(CHECKCAST, "[" + a.elem().descriptor());
        }
    }

    private void load(Expr.Load l) {
        boolean unchecked = proven(l);
        arrayOf(l.array(), l.row(), unchecked);
        expr(l.index());
        Elem e = l.array().elem();
        if (unchecked) {
            mv.visitInsn(switch (e) {
                case BOOLEAN, BYTE -> BALOAD;
                case SHORT -> SALOAD;
                case CHAR -> CALOAD;
                case INT -> IALOAD;
                case LONG -> LALOAD;
                case FLOAT -> FALOAD;
                case DOUBLE -> DALOAD;
            });
        } else {
            mayThrow[variant] = true;
            mv.visitMethodInsn(INVOKESTATIC, BASE, "ld", "([" + e.descriptor() + "I)" + typeDesc(e.type()), false);
        }
    }

    private void store(Stmt.Store st) {
        boolean unchecked = proven(st);
        arrayOf(st.array(), st.row(), unchecked);
        expr(st.index());
        Elem e = st.array().elem();
        expr(st.value());
        convert(st.value().type(), e.type());
        if (unchecked) {
            if (e == Elem.BOOLEAN) {
                push(1);
                mv.visitInsn(IAND);
            }
            mv.visitInsn(switch (e) {
                case BOOLEAN, BYTE -> BASTORE;
                case SHORT -> SASTORE;
                case CHAR -> CASTORE;
                case INT -> IASTORE;
                case LONG -> LASTORE;
                case FLOAT -> FASTORE;
                case DOUBLE -> DASTORE;
            });
        } else {
            mayThrow[variant] = true;
            mv.visitMethodInsn(INVOKESTATIC, BASE, "st", "([" + e.descriptor() + "I" + typeDesc(e.type()) + ")V", false);
        }
    }

    private void atomic(Stmt.Atomic at) {
        Elem e = at.array().elem();
        Type t = e.type();
        if (e != Elem.INT && e != Elem.LONG && e != Elem.FLOAT && e != Elem.DOUBLE) {
            throw new Unsupported("Acc." + at.op().routine() + " on " + e.javaName() + "[] (line " + at.line() + ")");
        }
        mayThrow[variant] = true;
        arrayOf(at.array(), at.row(), false);
        int arr = newInt();
        mv.visitVarInsn(ASTORE, arr);
        expr(at.index());
        int idx = newInt();
        mv.visitVarInsn(ISTORE, idx);
        int[] ops = new int[at.operands().size()];
        for (int k = 0; k < ops.length; k++) {
            Expr o = at.operands().get(k);
            expr(o);
            convert(o.type(), t);
            ops[k] = t.isWide() ? newLong() : newInt();
            mv.visitVarInsn(storeOp(t), ops[k]);
        }
        mv.visitVarInsn(ILOAD, idx);
        mv.visitVarInsn(ALOAD, arr);
        mv.visitInsn(ARRAYLENGTH);
        mv.visitMethodInsn(INVOKESTATIC, BASE, "index", "(II)I", false);
        mv.visitInsn(POP);
        mv.visitVarInsn(ALOAD, arr);
        mv.visitVarInsn(ILOAD, idx);
        StringBuilder desc = new StringBuilder("([" + e.descriptor() + "I");
        for (int k = 0; k < ops.length; k++) {
            mv.visitVarInsn(loadOp(t), ops[k]);
            desc.append(typeDesc(t));
        }
        AtomicOp op = at.op();
        String ret = op == AtomicOp.WRITE ? "V" : op == AtomicOp.CAS ? "Z" : typeDesc(t);
        mv.visitMethodInsn(INVOKESTATIC, ACC, op.routine(), desc.append(')').append(ret).toString(), false);
        if (at.result() != null) {
            if (op == AtomicOp.WRITE) {
                throw new Unsupported("the result of Acc.atomicWrite (line " + at.line() + ")");
            }
            Type rt = op == AtomicOp.CAS ? Type.I32 : t;
            convert(rt, at.result().type());
            store(at.result());
        } else if (!ret.equals("V")) {
            mv.visitInsn(ret.equals("J") || ret.equals("D") ? POP2 : POP);
        }
    }

    // ------------------------------------------------------------------ expressions

    /** Jumps to {@code ifFalse} when the predicate {@code cond} is false. */
    private void condition(Expr cond, Label ifFalse) {
        if (cond instanceof Expr.Compare c && !c.left().type().isFloat()) {
            Type t = wider(c.left().type(), c.right().type());
            expr(c.left());
            convert(c.left().type(), t);
            expr(c.right());
            convert(c.right().type(), t);
            Cond negated = c.cond().negate();
            if (t == Type.I64) {
                mv.visitInsn(LCMP);
                mv.visitJumpInsn(ifOp(negated), ifFalse);
            } else {
                mv.visitJumpInsn(icmpOp(negated), ifFalse);
            }
            return;
        }
        expr(cond);
        mv.visitJumpInsn(IFEQ, ifFalse);
    }

    private static Type wider(Type a, Type b) {
        if (a == b) {
            return a;
        }
        if (a == Type.F64 || b == Type.F64) {
            return Type.F64;
        }
        if (a == Type.F32 || b == Type.F32) {
            return Type.F32;
        }
        if (a == Type.I64 || b == Type.I64) {
            return Type.I64;
        }
        return Type.I32;
    }

    private void expr(Expr e) {
        if (e instanceof Expr.Const k) {
            constBits(k.type(), k.bits());
        } else if (e instanceof Expr.Local l) {
            load(l.var());
        } else if (e instanceof Expr.FieldValue f) {
            Integer s = fieldSlots.get(f.field());
            if (s == null) {
                throw new Unsupported("the field " + f.field().name());
            }
            mv.visitVarInsn(loadOp(f.type()), s);
        } else if (e instanceof Expr.Load l) {
            load(l);
        } else if (e instanceof Expr.Length l) {
            arrayOf(l.array(), l.row(), false);
            mv.visitInsn(ARRAYLENGTH);
        } else if (e instanceof Expr.Call c) {
            call(c);
        } else if (e instanceof Expr.Binary b) {
            binary(b);
        } else if (e instanceof Expr.Unary u) {
            expr(u.operand());
            Type t = u.operand().type();
            switch (u.op()) {
                case NEG -> mv.visitInsn(switch (t) {
                    case I32 -> INEG;
                    case I64 -> LNEG;
                    case F32 -> FNEG;
                    case F64 -> DNEG;
                    case PRED -> throw new Unsupported("negation of a predicate");
                });
                case TO_BYTE -> mv.visitInsn(I2B);
                case TO_SHORT -> mv.visitInsn(I2S);
                case TO_CHAR -> mv.visitInsn(I2C);
                case NOT -> {
                    push(1);
                    mv.visitInsn(IXOR);
                }
            }
        } else if (e instanceof Expr.Convert c) {
            expr(c.operand());
            convert(c.operand().type(), c.type());
        } else if (e instanceof Expr.Compare c) {
            compare(c);
        } else if (e instanceof Expr.Select s) {
            Label otherwise = new Label();
            Label end = new Label();
            condition(s.cond(), otherwise);
            expr(s.ifTrue());
            convert(s.ifTrue().type(), s.type());
            mv.visitJumpInsn(GOTO, end);
            mv.visitLabel(otherwise);
            expr(s.ifFalse());
            convert(s.ifFalse().type(), s.type());
            mv.visitLabel(end);
        } else if (e instanceof Expr.Cmp3 c) {
            Type t = wider(c.left().type(), c.right().type());
            expr(c.left());
            convert(c.left().type(), t);
            expr(c.right());
            convert(c.right().type(), t);
            mv.visitInsn(switch (t) {
                case I64 -> LCMP;
                case F32 -> c.nanIsOne() ? FCMPG : FCMPL;
                case F64 -> c.nanIsOne() ? DCMPG : DCMPL;
                default -> throw new Unsupported("a three-way comparison of " + t.javaName());
            });
        } else {
            throw new Unsupported("the expression " + e);
        }
    }

    /** A comparison as an int 0 or 1, with Java's NaN behaviour ({@code unordered}). */
    private void compare(Expr.Compare c) {
        Type t = wider(c.left().type(), c.right().type());
        if (t == Type.PRED) {
            t = Type.I32;
        }
        boolean floating = t.isFloat();
        Cond cond = c.cond();
        if (floating && ((cond == Cond.EQ && c.unordered()) || (cond == Cond.NE && !c.unordered()))) {
            expr(c.left());
            convert(c.left().type(), Type.F64);
            expr(c.right());
            convert(c.right().type(), Type.F64);
            mv.visitMethodInsn(INVOKESTATIC, BASE, cond == Cond.EQ ? "eqOrNaN" : "neAndOrdered", "(DD)Z", false);
            return;
        }
        expr(c.left());
        convert(c.left().type(), t);
        expr(c.right());
        convert(c.right().type(), t);
        Label yes = new Label();
        Label end = new Label();
        switch (t) {
            case I32 -> mv.visitJumpInsn(icmpOp(cond), yes);
            case I64 -> {
                mv.visitInsn(LCMP);
                mv.visitJumpInsn(ifOp(cond), yes);
            }
            case F32, F64 -> {
                // the NaN result of fcmpg is 1, of fcmpl -1: pick the one that makes the test give `unordered`
                boolean g = switch (cond) {
                    case LT, LE -> !c.unordered();
                    case GT, GE -> c.unordered();
                    default -> true;
                };
                mv.visitInsn(t == Type.F32 ? (g ? FCMPG : FCMPL) : (g ? DCMPG : DCMPL));
                mv.visitJumpInsn(ifOp(cond), yes);
            }
            default -> throw new Unsupported("a comparison of " + t.javaName());
        }
        push(0);
        mv.visitJumpInsn(GOTO, end);
        mv.visitLabel(yes);
        push(1);
        mv.visitLabel(end);
    }

    private void binary(Expr.Binary b) {
        Type t = b.type();
        expr(b.left());
        if (b.op().isShift()) {
            expr(b.right());
            convert(b.right().type(), Type.I32);
        } else {
            expr(b.right());
            convert(b.right().type(), t);
        }
        if ((b.op() == BinOp.DIV || b.op() == BinOp.REM) && (t == Type.I32 || t == Type.I64)) {
            boolean constant = b.right() instanceof Expr.Const k && k.bits() != 0
                    && (t == Type.I64 || (int) k.bits() != 0);
            if (!constant) {
                mayThrow[variant] = true;
                Label ok = new Label();
                if (t == Type.I32) {
                    mv.visitInsn(DUP);
                    mv.visitJumpInsn(IFNE, ok);
                } else {
                    mv.visitInsn(DUP2);
                    push(0L);
                    mv.visitInsn(LCMP);
                    mv.visitJumpInsn(IFNE, ok);
                }
                mv.visitMethodInsn(INVOKESTATIC, BASE, "divisionByZero", "()Ljava/lang/ArithmeticException;", false);
                mv.visitInsn(ATHROW);
                mv.visitLabel(ok);
            }
        }
        int base = switch (t) {
            case I32, PRED -> 0;
            case I64 -> 1;
            case F32 -> 2;
            case F64 -> 3;
        };
        int op = switch (b.op()) {
            case ADD -> IADD + base;
            case SUB -> ISUB + base;
            case MUL -> IMUL + base;
            case DIV -> IDIV + base;
            case REM -> IREM + base;
            case AND -> intOnly(IAND, base, b);
            case OR -> intOnly(IOR, base, b);
            case XOR -> intOnly(IXOR, base, b);
            case SHL -> intOnly(ISHL, base, b);
            case SHR -> intOnly(ISHR, base, b);
            case USHR -> intOnly(IUSHR, base, b);
        };
        mv.visitInsn(op);
    }

    private static int intOnly(int intOp, int base, Expr.Binary b) {
        if (base > 1) {
            throw new Unsupported("the operator " + b.op().symbol() + " on " + b.type().javaName());
        }
        return intOp + base;
    }

    private void call(Expr.Call c) {
        Type t = c.type();
        String d = typeDesc(t);
        for (Expr a : c.args()) {
            expr(a);
            convert(a.type(), t);
        }
        String owner = MATH;
        String name = c.fn().javaName();
        String desc = "(" + d.repeat(c.args().size()) + ")" + d;
        switch (c.fn()) {
            case SQRT, FLOOR, CEIL, RINT -> {
                if (t != Type.F64) {
                    throw new Unsupported("Math." + name + "(" + t.javaName() + ")");
                }
            }
            case ABS, MIN, MAX -> { }
            case FMA -> {
                if (!t.isFloat()) {
                    throw new Unsupported("Math.fma(" + t.javaName() + ")");
                }
            }
            case EXP, LOG, POW, SIN, COS, TAN, TANH -> {
                if (t != Type.F64) {
                    throw new Unsupported("Math." + name + "(" + t.javaName() + ")");
                }
                // the device's routines' bits, as the kernel interpreter computes them
                owner = ACC_MATH;
            }
        }
        mv.visitMethodInsn(INVOKESTATIC, owner, name, desc, false);
    }

    // ------------------------------------------------------------------ helpers

    private void convert(Type from, Type to) {
        if (from == to || (from == Type.PRED && to == Type.I32) || (from == Type.I32 && to == Type.PRED)) {
            return;
        }
        int op = switch (from) {
            case I32, PRED -> switch (to) {
                case I64 -> I2L;
                case F32 -> I2F;
                case F64 -> I2D;
                default -> NOP;
            };
            case I64 -> switch (to) {
                case I32, PRED -> L2I;
                case F32 -> L2F;
                case F64 -> L2D;
                default -> NOP;
            };
            case F32 -> switch (to) {
                case I32 -> F2I;
                case I64 -> F2L;
                case F64 -> F2D;
                default -> NOP;
            };
            case F64 -> switch (to) {
                case I32 -> D2I;
                case I64 -> D2L;
                case F32 -> D2F;
                default -> NOP;
            };
        };
        if (op == NOP) {
            throw new Unsupported("a conversion from " + from.javaName() + " to " + to.javaName());
        }
        mv.visitInsn(op);
    }

    private void constBits(Type t, long bits) {
        switch (t) {
            case I32, PRED -> push((int) bits);
            case I64 -> push(bits);
            case F32 -> {
                float f = Float.intBitsToFloat((int) bits);
                if (Float.isNaN(f)) {
                    push((int) bits);
                    mv.visitMethodInsn(INVOKESTATIC, "java/lang/Float", "intBitsToFloat", "(I)F", false);
                } else {
                    mv.visitLdcInsn(f);
                }
            }
            case F64 -> {
                double d = Double.longBitsToDouble(bits);
                if (Double.isNaN(d)) {
                    push(bits);
                    mv.visitMethodInsn(INVOKESTATIC, "java/lang/Double", "longBitsToDouble", "(J)D", false);
                } else {
                    mv.visitLdcInsn(d);
                }
            }
        }
    }

    private void zero(Type t) {
        switch (t) {
            case I32, PRED -> push(0);
            case I64 -> push(0L);
            case F32 -> mv.visitInsn(FCONST_0);
            case F64 -> mv.visitInsn(DCONST_0);
        }
    }

    private void push(int v) {
        if (v >= -1 && v <= 5) {
            mv.visitInsn(ICONST_0 + v);
        } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
            mv.visitIntInsn(BIPUSH, v);
        } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            mv.visitIntInsn(SIPUSH, v);
        } else {
            mv.visitLdcInsn(v);
        }
    }

    private void push(long v) {
        if (v == 0 || v == 1) {
            mv.visitInsn(LCONST_0 + (int) v);
        } else {
            mv.visitLdcInsn(v);
        }
    }

    private int slotOf(Var v) {
        Integer s = slots.get(v);
        if (s == null) {
            s = next;
            next += v.type().isWide() ? 2 : 1;
            slots.put(v, s);
        }
        return s;
    }

    private void load(Var v) {
        mv.visitVarInsn(loadOp(v.type()), slotOf(v));
    }

    private void store(Var v) {
        mv.visitVarInsn(storeOp(v.type()), slotOf(v));
    }

    private static int loadOp(Type t) {
        return switch (t) {
            case I32, PRED -> ILOAD;
            case I64 -> LLOAD;
            case F32 -> FLOAD;
            case F64 -> DLOAD;
        };
    }

    private static int storeOp(Type t) {
        return switch (t) {
            case I32, PRED -> ISTORE;
            case I64 -> LSTORE;
            case F32 -> FSTORE;
            case F64 -> DSTORE;
        };
    }

    static String typeDesc(Type t) {
        return switch (t) {
            case I32 -> "I";
            case PRED -> "Z";
            case I64 -> "J";
            case F32 -> "F";
            case F64 -> "D";
        };
    }

    static String arrayDesc(ArrayRef a) {
        return "[".repeat(a.dims()) + a.elem().descriptor();
    }

    private static int icmpOp(Cond c) {
        return switch (c) {
            case EQ -> IF_ICMPEQ;
            case NE -> IF_ICMPNE;
            case LT -> IF_ICMPLT;
            case LE -> IF_ICMPLE;
            case GT -> IF_ICMPGT;
            case GE -> IF_ICMPGE;
        };
    }

    private static int ifOp(Cond c) {
        return switch (c) {
            case EQ -> IFEQ;
            case NE -> IFNE;
            case LT -> IFLT;
            case LE -> IFLE;
            case GT -> IFGT;
            case GE -> IFGE;
        };
    }

    // ------------------------------------------------------------------ what the region uses

    private static void collect(List<Stmt> stmts, Set<ArrayRef> arrays, Map<ArrayRef.Field, Expr.FieldValue> fields) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                collect(a.value(), arrays, fields);
            } else if (s instanceof Stmt.Store st) {
                arrays.add(st.array());
                collect(st.row(), arrays, fields);
                collect(st.index(), arrays, fields);
                collect(st.value(), arrays, fields);
            } else if (s instanceof Stmt.Atomic at) {
                arrays.add(at.array());
                collect(at.row(), arrays, fields);
                collect(at.index(), arrays, fields);
                at.operands().forEach(o -> collect(o, arrays, fields));
            } else if (s instanceof Stmt.If i) {
                collect(i.cond(), arrays, fields);
                collect(i.then(), arrays, fields);
                collect(i.otherwise(), arrays, fields);
            } else if (s instanceof Stmt.While w) {
                collect(w.cond(), arrays, fields);
                collect(w.body(), arrays, fields);
            } else if (s instanceof Stmt.For f) {
                collect(f.lower(), arrays, fields);
                collect(f.bound(), arrays, fields);
                collect(f.body(), arrays, fields);
            } else if (s instanceof Stmt.Return r && r.value() != null) {
                collect(r.value(), arrays, fields);
            }
        }
    }

    private static void collect(Expr e, Set<ArrayRef> arrays, Map<ArrayRef.Field, Expr.FieldValue> fields) {
        if (e == null) {
            return;
        }
        if (e instanceof Expr.FieldValue f) {
            fields.putIfAbsent(f.field(), f);
        } else if (e instanceof Expr.Load l) {
            arrays.add(l.array());
            collect(l.row(), arrays, fields);
            collect(l.index(), arrays, fields);
        } else if (e instanceof Expr.Length l) {
            arrays.add(l.array());
            collect(l.row(), arrays, fields);
        } else if (e instanceof Expr.Call c) {
            c.args().forEach(a -> collect(a, arrays, fields));
        } else if (e instanceof Expr.Binary b) {
            collect(b.left(), arrays, fields);
            collect(b.right(), arrays, fields);
        } else if (e instanceof Expr.Unary u) {
            collect(u.operand(), arrays, fields);
        } else if (e instanceof Expr.Convert c) {
            collect(c.operand(), arrays, fields);
        } else if (e instanceof Expr.Compare c) {
            collect(c.left(), arrays, fields);
            collect(c.right(), arrays, fields);
        } else if (e instanceof Expr.Select s) {
            collect(s.cond(), arrays, fields);
            collect(s.ifTrue(), arrays, fields);
            collect(s.ifFalse(), arrays, fields);
        } else if (e instanceof Expr.Cmp3 c) {
            collect(c.left(), arrays, fields);
            collect(c.right(), arrays, fields);
        }
    }

    private static void collectVars(List<Stmt> stmts, Set<Var> vars) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                vars.add(a.var());
                collectVars(a.value(), vars);
            } else if (s instanceof Stmt.Store st) {
                collectVars(st.row(), vars);
                collectVars(st.index(), vars);
                collectVars(st.value(), vars);
            } else if (s instanceof Stmt.Atomic at) {
                if (at.result() != null) {
                    vars.add(at.result());
                }
                collectVars(at.row(), vars);
                collectVars(at.index(), vars);
                at.operands().forEach(o -> collectVars(o, vars));
            } else if (s instanceof Stmt.If i) {
                collectVars(i.cond(), vars);
                collectVars(i.then(), vars);
                collectVars(i.otherwise(), vars);
            } else if (s instanceof Stmt.While w) {
                collectVars(w.cond(), vars);
                collectVars(w.body(), vars);
            } else if (s instanceof Stmt.For f) {
                vars.add(f.index());
                if (f.stride() != null) {
                    vars.add(f.stride().var());
                }
                collectVars(f.lower(), vars);
                collectVars(f.bound(), vars);
                collectVars(f.body(), vars);
            }
        }
    }

    private static void collectVars(Expr e, Set<Var> vars) {
        if (e == null) {
            return;
        }
        if (e instanceof Expr.Local l) {
            vars.add(l.var());
        } else if (e instanceof Expr.Load l) {
            collectVars(l.row(), vars);
            collectVars(l.index(), vars);
        } else if (e instanceof Expr.Length l) {
            collectVars(l.row(), vars);
        } else if (e instanceof Expr.Call c) {
            c.args().forEach(a -> collectVars(a, vars));
        } else if (e instanceof Expr.Binary b) {
            collectVars(b.left(), vars);
            collectVars(b.right(), vars);
        } else if (e instanceof Expr.Unary u) {
            collectVars(u.operand(), vars);
        } else if (e instanceof Expr.Convert c) {
            collectVars(c.operand(), vars);
        } else if (e instanceof Expr.Compare c) {
            collectVars(c.left(), vars);
            collectVars(c.right(), vars);
        } else if (e instanceof Expr.Select s) {
            collectVars(s.cond(), vars);
            collectVars(s.ifTrue(), vars);
            collectVars(s.ifFalse(), vars);
        } else if (e instanceof Expr.Cmp3 c) {
            collectVars(c.left(), vars);
            collectVars(c.right(), vars);
        }
    }

    static Set<Object> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }
}
