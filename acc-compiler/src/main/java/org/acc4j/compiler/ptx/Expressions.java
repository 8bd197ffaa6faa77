package org.acc4j.compiler.ptx;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Type;

/**
 * Lowers the expressions of one kernel to PTX, with Java's semantics (see {@link KernelEmitter}): one method per
 * kind of expression, so a new kind does not compile until it has its PTX. Registers, array addresses, error sites
 * and the lines the errors name come from the kernel being emitted.
 */
final class Expressions implements Expr.Visitor<Reg> {
    private final KernelEmitter em;
    private final PtxWriter w;

    Expressions(KernelEmitter em, PtxWriter w) {
        this.em = em;
        this.w = w;
    }

    Reg constant(Type t, long value) {
        Reg r = w.reg(t);
        w.mov(r, literal(new Expr.Const(t, value)));
        return r;
    }

    static String literal(Expr.Const k) {
        return switch (k.type()) {
            case I32 -> Integer.toString((int) k.bits());
            case I64 -> Long.toString(k.bits());
            case F32 -> String.format("0f%08X", (int) k.bits());
            case F64 -> String.format("0d%016X", k.bits());
            case PRED -> k.bits() != 0 ? "1" : "0";
        };
    }

    /** The value of {@code e} in a register. */
    Reg expr(Expr e) {
        return e.accept(this);
    }

    @Override
    public Reg visit(Expr.Const k) {
        if (k.type() == Type.PRED) {
            Reg bit = w.reg(Type.I32);
            Reg p = w.reg(Type.PRED);
            w.mov(bit, k.bits() != 0 ? 1 : 0);
            w.setp("ne", "s32", p, bit, 0);
            return p;
        }
        Reg r = w.reg(k.type());
        w.mov(r, literal(k));
        return r;
    }

    @Override
    public Reg visit(Expr.Local l) {
        return em.var(l.var());
    }

    @Override
    public Reg visit(Expr.FieldValue f) {
        return em.fields.get(f.field());
    }

    @Override
    public Reg visit(Expr.Length l) {
        return l.row() == null ? em.lengths.get(l.array()) : em.mem.row(l.array(), l.row(), em.currentLine, true)[1];
    }

    @Override
    public Reg visit(Expr.Load l) {
        boolean readOnly = !em.written.contains(l.array());
        // a narrow element widens as Java's baload/saload/caload: s8 and s16 sign-extend, u8 and u16 zero-extend
        String type = l.array().elem().ptxLoad();
        boolean check = !em.unchecked.contains(l.access());
        if (!check && Addresses.linear(em.proofs.get(l.access()))) {
            Addresses.Place at = em.mem.unchecked(l.array(), l.row(), em.proofs.get(l.access()), em.currentLine);
            Reg d = w.reg(l.type());
            w.ldGlobalOffset(readOnly, type, d, at.base(), at.offset());
            return d;
        }
        Reg index = expr(l.index());
        Reg addr = l.row() == null ? em.mem.address(l.array(), index, em.currentLine, l.array().elem().bytes(), check)
                : em.mem.address2(l.array(), l.row(), index, em.currentLine, check);
        Reg d = w.reg(l.type());
        w.ldGlobal(readOnly, type, d, addr);
        return d;
    }

    @Override
    public Reg visit(Expr.Unary u) {
        Reg a = expr(u.operand());
        Reg d = w.reg(u.type());
        switch (u.op()) {
            case NEG -> w.op("neg." + u.type().ptx(), d, a);
            case TO_BYTE -> w.op("cvt.s32.s8", d, a);
            case TO_SHORT -> w.op("cvt.s32.s16", d, a);
            case TO_CHAR -> w.op("and.b32", d, a, 0xffff);
            case NOT -> w.op("not.pred", d, a);
        }
        return d;
    }

    @Override
    public Reg visit(Expr.Compare c) {
        Reg a = expr(c.left());
        Reg b = expr(c.right());
        Reg p = w.reg(Type.PRED);
        String cond = c.cond().name().toLowerCase() + (c.unordered() && c.left().type().isFloat() ? "u" : "");
        w.setp(cond, c.left().type().ptx(), p, a, b);
        return p;
    }

    @Override
    public Reg visit(Expr.Select s) {
        Reg p = expr(s.cond());
        Reg a = expr(s.ifTrue());
        Reg b = expr(s.ifFalse());
        Reg d = w.reg(s.type());
        w.op("selp." + s.type().bits(), d, a, b, p);
        return d;
    }

    @Override
    public Reg visit(Expr.Cmp3 c) {
        Reg a = expr(c.left());
        Reg b = expr(c.right());
        String t = c.left().type().ptx();
        Reg lt = w.reg(Type.PRED);
        Reg gt = w.reg(Type.PRED);
        Reg d = w.reg(Type.I32);
        w.setp("lt", t, lt, a, b);
        w.setp("gt", t, gt, a, b);
        w.op("selp.b32", d, 1, 0, gt);
        w.predicated(lt, true, "mov.b32 " + d + ", -1");
        if (c.left().type().isFloat()) {
            Reg nan = w.reg(Type.PRED);
            w.setp("nan", t, nan, a, b);
            w.predicated(nan, true, "mov.b32 " + d + ", " + (c.nanIsOne() ? 1 : -1));
        }
        return d;
    }

    /** A {@code Math} call with Java's result: exact functions inline, the others through {@code ptx-templates}. */
    @Override
    public Reg visit(Expr.Call c) {
        Type t = c.type();
        String ty = t.ptx();
        List<Reg> a = new ArrayList<>();
        for (Expr x : c.args()) {
            a.add(expr(x));
        }
        Reg d = w.reg(t);
        switch (c.fn()) {
            case SQRT -> w.op("sqrt.rn." + ty, d, a.get(0));
            case FMA -> w.op("fma.rn." + ty, d, a.get(0), a.get(1), a.get(2));
            case FLOOR -> w.op("cvt.rmi." + ty + "." + ty, d, a.get(0));
            case CEIL -> w.op("cvt.rpi." + ty + "." + ty, d, a.get(0));
            case RINT -> w.op("cvt.rni." + ty + "." + ty, d, a.get(0));
            case ABS -> {
                if (t.isFloat()) {
                    // clear the sign bit, as Math.abs does (NaN stays NaN)
                    String b = t == Type.F64 ? "b64" : "b32";
                    Reg bits = w.reg(t == Type.F64 ? Type.I64 : Type.I32);
                    w.op("mov." + b, bits, a.get(0));
                    w.op("and." + b, bits, bits, t == Type.F64 ? "0x7FFFFFFFFFFFFFFF" : "0x7FFFFFFF");
                    w.op("mov." + b, d, bits);
                } else {
                    w.op("abs." + ty, d, a.get(0));
                }
            }
            case MIN, MAX -> {
                boolean min = c.fn() == org.acc4j.compiler.ir.MathFn.MIN;
                if (!t.isFloat()) {
                    w.op((min ? "min." : "max.") + ty, d, a.get(0), a.get(1));
                } else {
                    minMax(min, t, d, a.get(0), a.get(1));
                }
            }
            case BIT_COUNT, LEADING_ZEROS, TRAILING_ZEROS, REVERSE, RAW_BITS, FROM_BITS ->
                    bits(c.fn(), c.args().get(0).type(), d, a.get(0));
            default -> mathRoutine(c, d, a);
        }
        return d;
    }

    /** A bit function: population count, leading or trailing zeros, bit reversal, or the same bits as another type. */
    private void bits(org.acc4j.compiler.ir.MathFn fn, Type operand, Reg d, Reg x) {
        String b = operand.isWide() ? "b64" : "b32";
        switch (fn) {
            case BIT_COUNT -> w.op("popc." + b, d, x);
            case LEADING_ZEROS -> w.op("clz." + b, d, x);
            case TRAILING_ZEROS -> {
                // the leading zeros of the reversed bits (32 or 64 for zero, as Java's)
                Reg r = w.reg(operand);
                w.op("brev." + b, r, x);
                w.op("clz." + b, d, r);
            }
            case REVERSE -> w.op("brev." + b, d, x);
            default -> w.op("mov." + b, d, x);
        }
    }

    /** A call of a {@code ptx-templates} math routine: arguments and result pass through {@code .param} space. */
    private void mathRoutine(Expr.Call c, Reg d, List<Reg> a) {
        var routine = org.acc4j.templates.MathLibrary.routine(c.fn().javaName(), c.type() == Type.F64)
                .orElseThrow(() -> new Unsupported(em.currentLine, "Math." + c.fn().javaName() + " on "
                        + c.type().javaName() + " on the GPU (ptx-templates has no routine for it)"));
        em.mathUsed.add(routine);
        String ty = routine.ptxType();
        StringBuilder call = new StringBuilder("{\n");
        for (int k = 0; k < a.size(); k++) {
            call.append("\t.param .").append(ty).append(" a").append(k).append(";\n");
        }
        call.append("\t.param .").append(ty).append(" r0;\n");
        for (int k = 0; k < a.size(); k++) {
            call.append("\tst.param.").append(ty).append(" [a").append(k).append("], ").append(a.get(k)).append(";\n");
        }
        call.append("\tcall.uni (r0), ").append(routine.symbol()).append(", (");
        for (int k = 0; k < a.size(); k++) {
            call.append(k > 0 ? ", " : "").append('a').append(k);
        }
        call.append(");\n\tld.param.").append(ty).append(' ').append(d).append(", [r0];\n\t}");
        w.block(call.toString());
    }

    /**
     * Math.min and Math.max on float or double: the first NaN operand if any; min(-0.0, 0.0) is -0.0 and
     * max(-0.0, 0.0) is 0.0 (the OR and the AND of the two zeros' bits); otherwise the smaller or larger.
     */
    private void minMax(boolean min, Type t, Reg d, Reg a, Reg b) {
        FloatMinMax.emit(w, min, t, d, a, b);
    }

    @Override
    public Reg visit(Expr.Binary b) {
        Type t = b.type();
        Reg a = expr(b.left());
        Reg c = expr(b.right());
        Reg d = w.reg(t);
        String ty = t.ptx();
        if (t.isFloat()) {
            switch (b.op()) {
                case ADD -> w.op("add.rn." + ty, d, a, c);
                case SUB -> w.op("sub.rn." + ty, d, a, c);
                case MUL -> w.op("mul.rn." + ty, d, a, c);
                case DIV -> w.op("div.rn." + ty, d, a, c);
                default -> throw new Unsupported(em.currentLine, "the operator " + b.op().symbol() + " on " + t.javaName());
            }
            return d;
        }
        switch (b.op()) {
            case ADD -> w.op("add." + ty, d, a, c);
            case SUB -> w.op("sub." + ty, d, a, c);
            case MUL -> w.op("mul.lo." + ty, d, a, c);
            case AND -> w.op("and." + t.bits(), d, a, c);
            case OR -> w.op("or." + t.bits(), d, a, c);
            case XOR -> w.op("xor." + t.bits(), d, a, c);
            case SHL, SHR, USHR -> {
                Reg count = w.reg(Type.I32);
                w.op("and.b32", count, c, t == Type.I64 ? 63 : 31);
                String op = switch (b.op()) {
                    case SHL -> "shl." + t.bits();
                    case SHR -> "shr." + ty;
                    default -> "shr.u" + (t == Type.I64 ? "64" : "32");
                };
                w.op(op, d, a, count);
            }
            case DIV, REM -> {
                Reg zero = w.reg(Type.PRED);
                w.setp("eq", ty, zero, c, 0);
                int code = em.site(ErrorSite.Kind.DIVISION_BY_ZERO, null, em.currentLine);
                String stub = "$L_div0_" + code;
                w.braIf(zero, true, stub);
                String raise = em.raiseTarget;
                em.stubWriters.add(() -> {
                    w.label(stub);
                    w.mov(em.errCode, code);
                    w.mov(em.errDetail, 0);
                    w.bra(raise);
                });
                Reg minusOne = w.reg(Type.PRED);
                w.setp("eq", ty, minusOne, c, -1);
                if (b.op() == org.acc4j.compiler.ir.BinOp.DIV) {
                    w.predicated(minusOne, true, "neg." + ty + " " + d + ", " + a);
                    w.predicated(minusOne, false, "div." + ty + " " + d + ", " + a + ", " + c);
                } else {
                    w.predicated(minusOne, true, "mov." + t.bits() + " " + d + ", 0");
                    w.predicated(minusOne, false, "rem." + ty + " " + d + ", " + a + ", " + c);
                }
            }
        }
        return d;
    }

    @Override
    public Reg visit(Expr.Convert c) {
        Type from = c.operand().type();
        Type to = c.type();
        Reg a = expr(c.operand());
        if (from == to) {
            return a;
        }
        Reg d = w.reg(to);
        String op;
        if (!from.isFloat() && !to.isFloat()) {
            op = to == Type.I64 ? "cvt.s64.s32" : "cvt.u32.u64";
        } else if (!from.isFloat()) {
            op = "cvt.rn." + to.ptx() + "." + from.ptx();
        } else if (!to.isFloat()) {
            // Java: truncate, saturate, and NaN gives 0 (PTX saturates but gives a NaN no fixed value)
            w.op("cvt.rzi." + to.ptx() + "." + from.ptx(), d, a);
            Reg number = w.reg(Type.PRED);
            w.setp("num", from.ptx(), number, a, a);
            w.predicated(number, false, "mov." + to.bits() + " " + d + ", 0");
            return d;
        } else {
            op = to == Type.F64 ? "cvt.f64.f32" : "cvt.rn.f32.f64";
        }
        w.op(op, d, a);
        return d;
    }

    /**
     * The value a store into an array of {@code elem} computes: a narrowing conversion the store makes anyway (the
     * {@code i2b} before a {@code bastore} into a {@code byte[]}, {@code i2s} or {@code i2c} before a 16-bit store)
     * is left out, since the store keeps the same low bits.
     */
    static Expr stored(Elem elem, Expr value) {
        if (value instanceof Expr.Unary u && elem != Elem.BOOLEAN && elem.isNarrow()) {
            int bits = switch (u.op()) {
                case TO_BYTE -> 8;
                case TO_SHORT, TO_CHAR -> 16;
                default -> 0;
            };
            if (bits >= 8 * elem.bytes()) {
                return u.operand();
            }
        }
        return value;
    }
}
