package org.acc4j.compiler.site;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MultiANewArrayInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.Interpreter;
import org.objectweb.asm.tree.analysis.Value;

/**
 * What host code may do to arrays, from one point of a method until control reaches a launch site or leaves the
 * method: a forward analysis that follows every reference to where it came from ({@link Origin}) and records each
 * read and write of array elements, and each call that an array, or an object that may hold one, is passed to.
 *
 * <p>It is conservative where a reference escapes: an object passed to a call counts as every array reachable from
 * it being read and written, and a call into application code counts the same for the static fields of the caller's
 * and the callee's classes. A reference the analysis cannot name ({@link Origin.Any}) stands for every present array.
 */
final class HostEffects {
    private final Flow flow;
    private final String owner;
    private final Names names;
    /** Instructions whose effects the runtime follows one access at a time ({@link HostAccesses}). */
    private final BitSet exact;

    /** A local's name at an instruction, for the report. */
    interface Names {
        String at(int slot, int insn);
    }

    HostEffects(Flow flow, String owner, Names names, BitSet exact) {
        this.flow = flow;
        this.owner = owner;
        this.names = names;
        this.exact = exact;
    }

    /**
     * The effects of host code from instruction {@code start} on, where the reference locals hold the values they
     * held there; control stops on an edge {@code stop} accepts.
     */
    Set<Effect> from(int start, BiPredicate<Integer, Integer> stop) throws AnalyzerException {
        Set<Effect> effects = new LinkedHashSet<>();
        Interp interp = new Interp(effects);
        int maxLocals = flow.method.maxLocals;
        int maxStack = flow.method.maxStack;
        @SuppressWarnings("unchecked")
        Frame<V>[] in = new Frame[flow.size];
        Frame<BasicValue> typed = flow.frames[start];
        Frame<V> f0 = new Frame<>(maxLocals, maxStack);
        for (int s = 0; s < typed.getLocals(); s++) {
            BasicValue b = typed.getLocal(s);
            Type t = b.getType();
            Set<Origin> o = Flow.Typed.isReference(t)
                    ? Set.of(new Origin.Local(s, -1, names.at(s, start))) : Set.of();
            f0.setLocal(s, new V(b == BasicValue.UNINITIALIZED_VALUE ? 1 : b.getSize(), t, o));
        }
        in[start] = f0;
        Deque<Integer> work = new ArrayDeque<>();
        BitSet queued = new BitSet();
        work.add(start);
        queued.set(start);
        while (!work.isEmpty()) {
            int i = work.poll();
            queued.clear(i);
            AbstractInsnNode insn = flow.method.instructions.get(i);
            Frame<V> f = new Frame<>(in[i]);
            if (insn.getOpcode() >= 0) {
                f.execute(insn, interp);
            }
            BitSet next = flow.next[i];
            for (int s = next.nextSetBit(0); s >= 0; s = next.nextSetBit(s + 1)) {
                if (!stop.test(i, s) && merge(in, s, f, interp)) {
                    if (!queued.get(s)) {
                        queued.set(s);
                        work.add(s);
                    }
                }
            }
            BitSet h = flow.handlers[i];
            for (int s = h.nextSetBit(0); s >= 0; s = h.nextSetBit(s + 1)) {
                if (stop.test(i, s)) {
                    continue;
                }
                Frame<V> hf = new Frame<>(in[i]);
                hf.clearStack();
                hf.push(new V(1, Type.getObjectType("java/lang/Throwable"), Set.of()));
                if (merge(in, s, hf, interp) && !queued.get(s)) {
                    queued.set(s);
                    work.add(s);
                }
            }
        }
        return effects;
    }

    private static boolean merge(Frame<V>[] in, int s, Frame<V> f, Interp interp) throws AnalyzerException {
        if (in[s] == null) {
            in[s] = new Frame<>(f);
            return true;
        }
        return in[s].merge(f, interp);
    }

    /** A value: its size and type, and where the reference may have come from (empty for primitives and new objects). */
    record V(int size, Type type, Set<Origin> origins) implements Value {
        @Override
        public int getSize() {
            return size;
        }

        boolean isArray() {
            return type != null && type.getSort() == Type.ARRAY;
        }

        boolean isObject() {
            return type != null && type.getSort() == Type.OBJECT && !"null".equals(type.getInternalName());
        }
    }

    private static final Set<String> INERT = Set.of("java/lang/String", "java/lang/Integer", "java/lang/Long",
            "java/lang/Double", "java/lang/Float", "java/lang/Short", "java/lang/Byte", "java/lang/Character",
            "java/lang/Boolean", "java/lang/Class", "java/io/PrintStream", "java/lang/StringBuilder");

    /** Whether a class is the platform's (its code touches no application array except through its arguments). */
    static boolean platform(String internalName) {
        return internalName.startsWith("java/") || internalName.startsWith("javax/") || internalName.startsWith("jdk/")
                || internalName.startsWith("sun/");
    }

    private final class Interp extends Interpreter<V> {
        private final Set<Effect> effects;

        Interp(Set<Effect> effects) {
            super(Opcodes.ASM9);
            this.effects = effects;
        }

        private V prim(Type t) {
            return new V(t.getSize(), t, Set.of());
        }

        private V ref(Type t, Set<Origin> o) {
            return new V(1, t, o);
        }

        @Override
        public V newValue(Type type) {
            if (type == null) {
                return new V(1, null, Set.of());
            }
            if (type.getSort() == Type.VOID) {
                return null;
            }
            return new V(type.getSize(), type, Set.of());
        }

        @Override
        public V newOperation(AbstractInsnNode insn) {
            switch (insn.getOpcode()) {
                case Opcodes.ACONST_NULL:
                    return ref(Type.getObjectType("null"), Set.of());
                case Opcodes.ICONST_M1: case Opcodes.ICONST_0: case Opcodes.ICONST_1: case Opcodes.ICONST_2:
                case Opcodes.ICONST_3: case Opcodes.ICONST_4: case Opcodes.ICONST_5: case Opcodes.BIPUSH:
                case Opcodes.SIPUSH:
                    return prim(Type.INT_TYPE);
                case Opcodes.LCONST_0: case Opcodes.LCONST_1:
                    return prim(Type.LONG_TYPE);
                case Opcodes.FCONST_0: case Opcodes.FCONST_1: case Opcodes.FCONST_2:
                    return prim(Type.FLOAT_TYPE);
                case Opcodes.DCONST_0: case Opcodes.DCONST_1:
                    return prim(Type.DOUBLE_TYPE);
                case Opcodes.LDC: {
                    Object c = ((LdcInsnNode) insn).cst;
                    if (c instanceof Integer) {
                        return prim(Type.INT_TYPE);
                    } else if (c instanceof Long) {
                        return prim(Type.LONG_TYPE);
                    } else if (c instanceof Float) {
                        return prim(Type.FLOAT_TYPE);
                    } else if (c instanceof Double) {
                        return prim(Type.DOUBLE_TYPE);
                    } else if (c instanceof org.objectweb.asm.ConstantDynamic cd) {
                        return newValue(Type.getType(cd.getDescriptor()));
                    }
                    return ref(Type.getObjectType("java/lang/Object"), Set.of());
                }
                case Opcodes.JSR:
                    return ref(Type.VOID_TYPE, Set.of());
                case Opcodes.GETSTATIC: {
                    FieldInsnNode f = (FieldInsnNode) insn;
                    Type t = Type.getType(f.desc);
                    return Flow.Typed.isReference(t)
                            ? ref(t, Set.of(new Origin.Field(-1, -1, f.owner, f.name, f.desc))) : prim(t);
                }
                case Opcodes.NEW:
                    return ref(Type.getObjectType(((TypeInsnNode) insn).desc), Set.of());
                default:
                    throw new IllegalStateException("opcode " + insn.getOpcode());
            }
        }

        @Override
        public V copyOperation(AbstractInsnNode insn, V value) {
            return value;
        }

        @Override
        public V unaryOperation(AbstractInsnNode insn, V value) {
            switch (insn.getOpcode()) {
                case Opcodes.INEG: case Opcodes.IINC: case Opcodes.L2I: case Opcodes.F2I: case Opcodes.D2I:
                case Opcodes.I2B: case Opcodes.I2C: case Opcodes.I2S: case Opcodes.ARRAYLENGTH:
                case Opcodes.INSTANCEOF:
                    return prim(Type.INT_TYPE);
                case Opcodes.FNEG: case Opcodes.I2F: case Opcodes.L2F: case Opcodes.D2F:
                    return prim(Type.FLOAT_TYPE);
                case Opcodes.LNEG: case Opcodes.I2L: case Opcodes.F2L: case Opcodes.D2L:
                    return prim(Type.LONG_TYPE);
                case Opcodes.DNEG: case Opcodes.I2D: case Opcodes.L2D: case Opcodes.F2D:
                    return prim(Type.DOUBLE_TYPE);
                case Opcodes.GETFIELD: {
                    FieldInsnNode f = (FieldInsnNode) insn;
                    Type t = Type.getType(f.desc);
                    if (!Flow.Typed.isReference(t)) {
                        return prim(t);
                    }
                    Set<Origin> o = new LinkedHashSet<>();
                    for (Origin base : value.origins()) {
                        o.add(base instanceof Origin.Local l
                                ? new Origin.Field(l.slot(), -1, f.owner, f.name, f.desc) : new Origin.Any());
                    }
                    return ref(t, o);
                }
                case Opcodes.NEWARRAY:
                    return ref(Type.getType("[" + primitive(((org.objectweb.asm.tree.IntInsnNode) insn).operand)), Set.of());
                case Opcodes.ANEWARRAY: {
                    Type e = Type.getObjectType(((TypeInsnNode) insn).desc);
                    return ref(Type.getType("[" + e.getDescriptor()), Set.of());
                }
                case Opcodes.CHECKCAST:
                    return ref(Type.getObjectType(((TypeInsnNode) insn).desc), value.origins());
                case Opcodes.PUTSTATIC:
                    return null;
                default:
                    // branches, switches, returns, athrow, monitors
                    return null;
            }
        }

        private String primitive(int operand) {
            return switch (operand) {
                case Opcodes.T_BOOLEAN -> "Z";
                case Opcodes.T_CHAR -> "C";
                case Opcodes.T_BYTE -> "B";
                case Opcodes.T_SHORT -> "S";
                case Opcodes.T_INT -> "I";
                case Opcodes.T_FLOAT -> "F";
                case Opcodes.T_DOUBLE -> "D";
                default -> "J";
            };
        }

        @Override
        public V binaryOperation(AbstractInsnNode insn, V value1, V value2) {
            int op = insn.getOpcode();
            switch (op) {
                case Opcodes.IALOAD: case Opcodes.BALOAD: case Opcodes.CALOAD: case Opcodes.SALOAD:
                    read(insn, value1);
                    return prim(Type.INT_TYPE);
                case Opcodes.LALOAD:
                    read(insn, value1);
                    return prim(Type.LONG_TYPE);
                case Opcodes.FALOAD:
                    read(insn, value1);
                    return prim(Type.FLOAT_TYPE);
                case Opcodes.DALOAD:
                    read(insn, value1);
                    return prim(Type.DOUBLE_TYPE);
                case Opcodes.AALOAD: {
                    read(insn, value1);
                    Type t = value1.isArray() ? Type.getType(value1.type().getDescriptor().substring(1))
                            : Type.getObjectType("java/lang/Object");
                    // a row of a present two-dimensional array is synchronised with the array
                    return ref(t, value1.origins());
                }
                case Opcodes.LADD: case Opcodes.LSUB: case Opcodes.LMUL: case Opcodes.LDIV: case Opcodes.LREM:
                case Opcodes.LSHL: case Opcodes.LSHR: case Opcodes.LUSHR: case Opcodes.LAND: case Opcodes.LOR:
                case Opcodes.LXOR:
                    return prim(Type.LONG_TYPE);
                case Opcodes.FADD: case Opcodes.FSUB: case Opcodes.FMUL: case Opcodes.FDIV: case Opcodes.FREM:
                    return prim(Type.FLOAT_TYPE);
                case Opcodes.DADD: case Opcodes.DSUB: case Opcodes.DMUL: case Opcodes.DDIV: case Opcodes.DREM:
                    return prim(Type.DOUBLE_TYPE);
                case Opcodes.PUTFIELD:
                    return null;
                default:
                    if (op >= Opcodes.IF_ICMPEQ && op <= Opcodes.IF_ACMPNE) {
                        return null;
                    }
                    return prim(Type.INT_TYPE);
            }
        }

        @Override
        public V ternaryOperation(AbstractInsnNode insn, V value1, V value2, V value3) {
            // xASTORE, unless the runtime follows it itself
            if (!exact.get(flow.method.instructions.indexOf(insn))) {
                write(value1);
            }
            return null;
        }

        @Override
        public V naryOperation(AbstractInsnNode insn, List<? extends V> values) {
            int op = insn.getOpcode();
            if (op == Opcodes.MULTIANEWARRAY) {
                return ref(Type.getType(((MultiANewArrayInsnNode) insn).desc), Set.of());
            }
            if (op == Opcodes.INVOKEDYNAMIC) {
                // a lambda or a string concatenation: what it captures travels with the object it makes
                Set<Origin> captured = new LinkedHashSet<>();
                for (V v : values) {
                    captured.addAll(v.origins());
                }
                Type r = Type.getReturnType(((org.objectweb.asm.tree.InvokeDynamicInsnNode) insn).desc);
                return r.getSort() == Type.VOID ? null : Flow.Typed.isReference(r) ? ref(r, captured) : prim(r);
            }
            MethodInsnNode m = (MethodInsnNode) insn;
            boolean app = !platform(m.owner);
            for (V v : values) {
                if (v.isArray()) {
                    // an array of objects may hold arrays: everything reachable from it
                    escape(v, v.type().getElementType().getSort() == Type.OBJECT);
                } else if (v.isObject() && !INERT.contains(v.type().getInternalName())) {
                    escape(v, true);
                }
            }
            if (app) {
                for (String c : new String[] {owner, m.owner}) {
                    effects.add(new Effect(false, new Origin.Statics(c), true));
                    effects.add(new Effect(true, new Origin.Statics(c), true));
                }
            }
            Type r = Type.getReturnType(m.desc);
            if (r.getSort() == Type.VOID) {
                return null;
            }
            if (!Flow.Typed.isReference(r)) {
                return prim(r);
            }
            // a call's result may be any array, unless it is one of the platform's inert types
            return ref(r, INERT.contains(r.getInternalName()) ? Set.of() : Set.of(new Origin.Any()));
        }

        @Override
        public void returnOperation(AbstractInsnNode insn, V value, V expected) {
        }

        @Override
        public V merge(V a, V b) {
            if (a.equals(b)) {
                return a;
            }
            Type t;
            if (a.type() != null && a.type().equals(b.type())) {
                t = a.type();
            } else if (Flow.Typed.isReference(a.type()) && Flow.Typed.isReference(b.type())) {
                t = "null".equals(a.type().getInternalName()) ? b.type()
                        : "null".equals(b.type().getInternalName()) ? a.type() : Type.getObjectType("java/lang/Object");
            } else {
                t = null;
            }
            Set<Origin> o = new LinkedHashSet<>(a.origins());
            o.addAll(b.origins());
            int size = t == null ? Math.min(a.size(), b.size()) : t.getSize();
            return new V(size, t, o);
        }

        /** A load's read, unless the runtime follows that load itself. */
        private void read(AbstractInsnNode insn, V array) {
            if (!exact.get(flow.method.instructions.indexOf(insn))) {
                read(array);
            }
        }

        private void read(V array) {
            for (Origin o : array.origins()) {
                effects.add(new Effect(false, o, false));
            }
        }

        private void write(V array) {
            for (Origin o : array.origins()) {
                effects.add(new Effect(true, o, false));
            }
        }

        private void escape(V v, boolean deep) {
            for (Origin o : v.origins()) {
                effects.add(new Effect(false, o, deep));
                effects.add(new Effect(true, o, deep));
            }
        }
    }
}
