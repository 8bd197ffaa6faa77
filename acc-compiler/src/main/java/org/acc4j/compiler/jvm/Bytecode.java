package org.acc4j.compiler.jvm;

import java.util.HashMap;
import java.util.Map;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The instruction level under {@link JvmEmitter}: the method being written, its locals (a slot per IR variable, fresh
 * slots for the loops' own counters), constants, and Java's conversions between the IR's types.
 */
abstract class Bytecode implements Opcodes {
    /** Thrown for IR this backend does not translate: the nest then runs as plain Java, with this reason. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String message) {
            super(message);
        }
    }

    MethodVisitor mv;
    /** The next free local slot. */
    int next;
    final Map<Var, Integer> slots = new HashMap<>();

    int newLong() {
        int s = next;
        next += 2;
        return s;
    }

    int newInt() {
        return next++;
    }

    void convert(Type from, Type to) {
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

    void constBits(Type t, long bits) {
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

    void zero(Type t) {
        switch (t) {
            case I32, PRED -> push(0);
            case I64 -> push(0L);
            case F32 -> mv.visitInsn(FCONST_0);
            case F64 -> mv.visitInsn(DCONST_0);
        }
    }

    void push(int v) {
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

    void push(long v) {
        if (v == 0 || v == 1) {
            mv.visitInsn(LCONST_0 + (int) v);
        } else {
            mv.visitLdcInsn(v);
        }
    }

    int slotOf(Var v) {
        Integer s = slots.get(v);
        if (s == null) {
            s = next;
            next += v.type().isWide() ? 2 : 1;
            slots.put(v, s);
        }
        return s;
    }

    void load(Var v) {
        mv.visitVarInsn(loadOp(v.type()), slotOf(v));
    }

    void store(Var v) {
        mv.visitVarInsn(storeOp(v.type()), slotOf(v));
    }

    static int loadOp(Type t) {
        return switch (t) {
            case I32, PRED -> ILOAD;
            case I64 -> LLOAD;
            case F32 -> FLOAD;
            case F64 -> DLOAD;
        };
    }

    static int storeOp(Type t) {
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

    static int icmpOp(Cond c) {
        return switch (c) {
            case EQ -> IF_ICMPEQ;
            case NE -> IF_ICMPNE;
            case LT -> IF_ICMPLT;
            case LE -> IF_ICMPLE;
            case GT -> IF_ICMPGT;
            case GE -> IF_ICMPGE;
        };
    }

    static int ifOp(Cond c) {
        return switch (c) {
            case EQ -> IFEQ;
            case NE -> IFNE;
            case LT -> IFLT;
            case LE -> IFLE;
            case GT -> IFGT;
            case GE -> IFGE;
        };
    }

}
