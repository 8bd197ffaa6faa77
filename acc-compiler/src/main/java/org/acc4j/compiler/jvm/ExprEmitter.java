package org.acc4j.compiler.jvm;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.objectweb.asm.Label;

/**
 * Expressions and memory accesses as JVM instructions, under {@link JvmEmitter}: Java's arithmetic, comparisons with
 * Java's NaN behaviour, array accesses direct where the host proved them in bounds and through {@link JvmKernel}'s
 * checked helpers elsewhere (Java's exception and message), atomics through {@code Acc}'s host routines.
 */
abstract class ExprEmitter extends Bytecode {
    static final String BASE = JvmKernel.class.getName().replace('.', '/');
    static final String MATH = "java/lang/Math";
    static final String ACC_MATH = org.acc4j.templates.math.AccMath.class.getName().replace('.', '/');
    static final String ACC = org.acc4j.Acc.class.getName().replace('.', '/');

    /** Whether each variant ({@code [checked, proven]}) contains a check that may throw. */
    final boolean[] mayThrow = new boolean[2];
    final Map<ArrayRef, Integer> arraySlots = new HashMap<>();
    final Map<ArrayRef.Field, Integer> fieldSlots = new HashMap<>();
    /** The accesses proven in bounds for the variant being written. */
    Set<Integer> proven = Collections.emptySet();
    /** The variant being written: 0 checked, 1 proven. */
    int variant;

    void exprLong(Expr e) {
        expr(e);
        convert(e.type(), Type.I64);
    }

    // ------------------------------------------------------------------ memory

    boolean proven(int access) {
        return proven.contains(access);
    }

    /** Pushes the array (or its row) an access uses; the row checked unless {@code unchecked}. */
    void arrayOf(ArrayRef a, Expr row, boolean unchecked) {
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

    void load(Expr.Load l) {
        boolean unchecked = proven(l.access());
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

    void store(Stmt.Store st) {
        boolean unchecked = proven(st.access());
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

    void atomic(Stmt.Atomic at) {
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
    void condition(Expr cond, Label ifFalse) {
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

    static Type wider(Type a, Type b) {
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

    void expr(Expr e) {
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
    void compare(Expr.Compare c) {
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

    void binary(Expr.Binary b) {
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

    static int intOnly(int intOp, int base, Expr.Binary b) {
        if (base > 1) {
            throw new Unsupported("the operator " + b.op().symbol() + " on " + b.type().javaName());
        }
        return intOp + base;
    }

    void call(Expr.Call c) {
        if (c.fn().bits()) {
            bits(c);
            return;
        }
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
            case EXP, LOG, POW, SIN, COS, TAN, TANH, ATAN2, ATAN, ASIN, ACOS, HYPOT, CBRT, LOG10, LOG1P, EXPM1, SINH,
                 COSH -> {
                if (t != Type.F64) {
                    throw new Unsupported("Math." + name + "(" + t.javaName() + ")");
                }
                // the device's routines' bits, as the kernel interpreter computes them
                owner = switch (c.fn()) {
                    case ATAN2, ATAN, ASIN, ACOS -> "org/acc4j/templates/math/AccMathInverse";
                    case HYPOT, CBRT -> "org/acc4j/templates/math/AccMathAlgebraic";
                    case LOG10, LOG1P, EXPM1, SINH, COSH -> "org/acc4j/templates/math/AccMathLogExp";
                    default -> ACC_MATH;
                };
            }
            default -> throw new Unsupported("Math." + name);
        }
        mv.visitMethodInsn(INVOKESTATIC, owner, name, desc, false);
    }

    /** A bit function as the platform's own method: {@code Integer.bitCount}, {@code Double.doubleToRawLongBits}, ... */
    private void bits(Expr.Call c) {
        Expr x = c.args().get(0);
        expr(x);
        Type operand = x.type();
        String owner = switch (operand) {
            case I32 -> "java/lang/Integer";
            case I64 -> "java/lang/Long";
            case F32 -> "java/lang/Float";
            case F64 -> "java/lang/Double";
            case PRED -> throw new Unsupported("a bit function of a predicate");
        };
        String d = typeDesc(operand);
        String r = typeDesc(c.type());
        String name = switch (c.fn()) {
            case BIT_COUNT -> "bitCount";
            case LEADING_ZEROS -> "numberOfLeadingZeros";
            case TRAILING_ZEROS -> "numberOfTrailingZeros";
            case REVERSE -> "reverse";
            case RAW_BITS -> operand == Type.F64 ? "doubleToRawLongBits" : "floatToRawIntBits";
            default -> c.type() == Type.F64 ? "longBitsToDouble" : "intBitsToFloat";
        };
        if (c.fn() == org.acc4j.compiler.ir.MathFn.FROM_BITS) {
            owner = c.type() == Type.F64 ? "java/lang/Double" : "java/lang/Float";
        }
        mv.visitMethodInsn(INVOKESTATIC, owner, name, "(" + d + ")" + r, false);
    }

}
