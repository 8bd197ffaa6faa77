package org.acc4j.compiler.ptx;

import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;

/** A parallel level's trip count in 64 bits, as the kernel computes it before its loop. */
final class Trips {
    private Trips() {
    }

    /**
     * The loop's trip count in 64 bits (0 when it does not run), as {@link org.acc4j.compiler.ir.Evaluator#tripCount}.
     * A {@code !=} level runs only after the runtime has checked that its span is a whole number of steps in the
     * step's direction, so its count is the exact quotient.
     */
    static Reg count(PtxWriter w, Stmt.For f, Reg lo, Reg ub) {
        Reg d = w.reg(Type.I64);
        if (f.cond() == Cond.NE) {
            return notEqual(w, f, lo, ub, d);
        }
        boolean up = f.cond() == Cond.LT || f.cond() == Cond.LE;
        long s = Math.abs(f.step());
        if (up) {
            w.op("sub.s64", d, ub, lo);
        } else {
            w.op("sub.s64", d, lo, ub);
        }
        Reg trip = w.reg(Type.I64);
        Reg some = w.reg(Type.PRED);
        boolean strict = f.cond() == Cond.LT || f.cond() == Cond.GT;
        if (strict) {
            w.setp("gt", "s64", some, d, 0);
            if (s == 1) {
                w.mov(trip, d);
            } else {
                w.op("add.s64", trip, d, s - 1);
                w.op("div.s64", trip, trip, s);
            }
        } else {
            w.setp("ge", "s64", some, d, 0);
            if (s != 1) {
                w.op("div.s64", trip, d, s);
                w.op("add.s64", trip, trip, 1);
            } else {
                w.op("add.s64", trip, d, 1);
            }
        }
        w.op("selp.b64", trip, trip, 0, some);
        return trip;
    }

    private static Reg notEqual(PtxWriter w, Stmt.For f, Reg lo, Reg ub, Reg d) {
        long s = Math.abs(f.step());
        if (f.step() > 0) {
            w.op("sub.s64", d, ub, lo);
        } else {
            w.op("sub.s64", d, lo, ub);
        }
        Reg trip = w.reg(Type.I64);
        Reg some = w.reg(Type.PRED);
        w.setp("gt", "s64", some, d, 0);
        if (s == 1) {
            w.mov(trip, d);
        } else {
            w.op("div.s64", trip, d, s);
        }
        w.op("selp.b64", trip, trip, 0, some);
        return trip;
    }

    /** {@code r} sign-extended to 64 bits when {@code narrow}, else itself. */
    static Reg wide(PtxWriter w, Reg r, boolean narrow) {
        if (!narrow) {
            return r;
        }
        Reg d = w.reg(Type.I64);
        w.op("cvt.s64.s32", d, r);
        return d;
    }
}
