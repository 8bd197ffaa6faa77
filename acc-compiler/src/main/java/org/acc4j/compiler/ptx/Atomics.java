package org.acc4j.compiler.ptx;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Type;

/**
 * The PTX of {@code Acc.atomic...}, relaxed at GPU scope: {@code atom.global} with the old value, or
 * {@code red.global} when the old value is unused; a read or write is a volatile load or store. Floating-point
 * exchange and compare-and-set work on the bits, so compare-and-set compares them as {@code VarHandle} does.
 */
final class Atomics {
    private Atomics() {
    }

    /**
     * {@code op} on the element at {@code addr} (already bounds-checked) of an array of {@code t} ({@code elem}), with
     * {@code operands}; the old value (CAS: 1 when it stored) into {@code result} unless it is null.
     */
    static void emit(PtxWriter w, AtomicOp op, Type t, Elem elem, Reg addr, List<Reg> operands, Reg result) {
        String size = t.bytes() == 4 ? "b32" : "b64";
        Type bitsType = t.bytes() == 4 ? Type.I32 : Type.I64;
        if (op == AtomicOp.ADD && t == Type.F32) {
            floatAdd(w, addr, operands.get(0), result);
            return;
        }
        if ((op == AtomicOp.MIN || op == AtomicOp.MAX) && t.isFloat()) {
            floatMinMax(w, op == AtomicOp.MIN, t, addr, operands.get(0), result);
            return;
        }
        switch (op) {
            case READ -> w.raw("ld.volatile.global." + elem.ptxLoad() + " " + (result != null ? result : w.reg(t))
                    + ", [" + addr + "]");
            case WRITE -> w.raw("st.volatile.global." + elem.ptxStore() + " [" + addr + "], " + operands.get(0));
            case EXCHANGE, CAS -> {
                List<Reg> bits = new ArrayList<>();
                for (Reg r : operands) {
                    bits.add(t.isFloat() ? asBits(w, r, bitsType) : r);
                }
                Reg old = w.reg(bitsType);
                if (op == AtomicOp.EXCHANGE) {
                    w.raw("atom.global.exch." + size + " " + old + ", [" + addr + "], " + bits.get(0));
                    if (result != null) {
                        w.raw("mov." + size + " " + result + ", " + old);
                    }
                } else {
                    w.raw("atom.global.cas." + size + " " + old + ", [" + addr + "], " + bits.get(0) + ", " + bits.get(1));
                    if (result != null) {
                        Reg same = w.reg(Type.PRED);
                        w.setp("eq", size, same, old, bits.get(0));
                        w.op("selp.u32", result, 1, 0, same);
                    }
                }
            }
            default -> {
                String type = switch (op) {
                    case ADD -> t.isFloat() ? t.ptx() : t == Type.I32 ? "u32" : "u64";
                    case MIN, MAX -> t.ptx();
                    default -> size;
                };
                String name = op.name().toLowerCase(java.util.Locale.ROOT);
                if (result == null) {
                    w.raw("red.global." + name + "." + type + " [" + addr + "], " + operands.get(0));
                } else {
                    w.raw("atom.global." + name + "." + type + " " + result + ", [" + addr + "], " + operands.get(0));
                }
            }
        }
    }

    /**
     * {@code float} add as a compare-and-set loop on the bits with {@code add.rn.f32}, as {@code VarHandle.getAndAdd}
     * does: {@code atom.add.f32} flushes subnormal operands and results to zero, which Java does not.
     */
    private static void floatAdd(PtxWriter w, Reg addr, Reg value, Reg result) {
        Reg old = w.reg(Type.I32);
        Reg seen = w.reg(Type.I32);
        Reg f = w.reg(Type.F32);
        Reg sum = w.reg(Type.F32);
        Reg bits = w.reg(Type.I32);
        Reg again = w.reg(Type.PRED);
        String loop = w.newLabel("atomic_add");
        w.raw("ld.volatile.global.b32 " + old + ", [" + addr + "]");
        w.label(loop);
        w.raw("mov.b32 " + f + ", " + old);
        w.op("add.rn.f32", sum, f, value);
        w.raw("mov.b32 " + bits + ", " + sum);
        w.raw("atom.global.cas.b32 " + seen + ", [" + addr + "], " + old + ", " + bits);
        w.setp("ne", "b32", again, seen, old);
        w.raw("mov.b32 " + old + ", " + seen);
        w.braIf(again, true, loop);
        if (result != null) {
            w.mov(result, f);
        }
    }

    /**
     * {@code float} or {@code double} minimum or maximum as a compare-and-set loop on the bits with Java's
     * {@code Math.min}/{@code Math.max} ({@link FloatMinMax}); no store when the element already is the result.
     */
    private static void floatMinMax(PtxWriter w, boolean min, Type t, Reg addr, Reg value, Reg result) {
        Type bitsType = t.bytes() == 4 ? Type.I32 : Type.I64;
        String size = t.bytes() == 4 ? "b32" : "b64";
        Reg old = w.reg(bitsType);
        Reg seen = w.reg(bitsType);
        Reg f = w.reg(t);
        Reg next = w.reg(t);
        Reg bits = w.reg(bitsType);
        Reg same = w.reg(Type.PRED);
        Reg again = w.reg(Type.PRED);
        String loop = w.newLabel("atomic_minmax");
        String done = w.newLabel("atomic_minmax_done");
        w.raw("ld.volatile.global." + size + " " + old + ", [" + addr + "]");
        w.label(loop);
        w.raw("mov." + size + " " + f + ", " + old);
        FloatMinMax.emit(w, min, t, next, f, value);
        w.raw("mov." + size + " " + bits + ", " + next);
        w.setp("eq", size, same, bits, old);
        w.braIf(same, true, done);
        w.raw("atom.global.cas." + size + " " + seen + ", [" + addr + "], " + old + ", " + bits);
        w.setp("ne", size, again, seen, old);
        w.raw("mov." + size + " " + old + ", " + seen);
        w.braIf(again, true, loop);
        w.label(done);
        if (result != null) {
            w.mov(result, f);
        }
    }

    /** A floating-point register's bits in an integer register of the same size. */
    private static Reg asBits(PtxWriter w, Reg r, Type bitsType) {
        Reg b = w.reg(bitsType);
        w.raw("mov." + bitsType.bits() + " " + b + ", " + r);
        return b;
    }
}
