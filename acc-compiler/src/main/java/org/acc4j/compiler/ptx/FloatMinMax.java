package org.acc4j.compiler.ptx;

import org.acc4j.compiler.ir.Type;

/** Java's {@code Math.min} and {@code Math.max} on {@code float} and {@code double} in PTX. */
final class FloatMinMax {
    private FloatMinMax() {
    }

    /**
     * {@code d = Math.min(a, b)} (or max): the first NaN operand if any; min(-0.0, 0.0) is -0.0 and max(-0.0, 0.0) is
     * 0.0 (the OR and the AND of the two zeros' bits); otherwise the smaller or larger. PTX's own {@code min} returns
     * the other operand for a NaN, which Java does not.
     */
    static void emit(PtxWriter w, boolean min, Type t, Reg d, Reg a, Reg b) {
        String ty = t.ptx();
        String bits = t == Type.F64 ? "b64" : "b32";
        Type it = t == Type.F64 ? Type.I64 : Type.I32;
        Reg p = w.reg(Type.PRED);
        w.setp(min ? "le" : "ge", ty, p, a, b);
        w.op("selp." + ty, d, a, b, p);
        Reg az = w.reg(Type.PRED);
        Reg bz = w.reg(Type.PRED);
        w.setp("eq", ty, az, a, t == Type.F64 ? "0d0000000000000000" : "0f00000000");
        w.setp("eq", ty, bz, b, t == Type.F64 ? "0d0000000000000000" : "0f00000000");
        w.op("and.pred", az, az, bz);
        Reg ai = w.reg(it);
        Reg bi = w.reg(it);
        w.op("mov." + bits, ai, a);
        w.op("mov." + bits, bi, b);
        w.op((min ? "or." : "and.") + bits, ai, ai, bi);
        w.predicated(az, true, "mov." + bits + " " + d + ", " + ai);
        Reg bn = w.reg(Type.PRED);
        w.setp("nan", ty, bn, b, b);
        w.predicated(bn, true, "mov." + ty + " " + d + ", " + b);
        Reg an = w.reg(Type.PRED);
        w.setp("nan", ty, an, a, a);
        w.predicated(an, true, "mov." + ty + " " + d + ", " + a);
    }
}
