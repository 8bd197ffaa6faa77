package org.acc4j.compiler.ptx;

import java.util.List;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.pass.Dataflow;

/**
 * The levels of a 3D stencil nest kept at one point per thread ({@link org.acc4j.compiler.pass.PointBlock#MAPPING}
 * and {@link org.acc4j.compiler.pass.PointBlock#MAPPING_ALIGNED}), emitted together from the first: a path
 * without loops for the threads of a grid that covers the nest, one loop over the points for the others.
 */
final class PointNest {
    private final KernelEmitter em;
    private final PtxWriter w;

    PointNest(KernelEmitter em, PtxWriter w) {
        this.em = em;
        this.w = w;
    }

    /**
     * A 3D stencil nest kept at one point per thread ({@link org.acc4j.compiler.pass.PointBlock#MAPPING}), from
     * its first level, when its three levels are single loops nested directly over 32-bit indices and one-dimensional
     * arrays: a thread whose grid covers the three levels runs its one point on a path without loops, and otherwise
     * the nest's points in linear order (the stride-1 level's fastest), from the thread's place in the grid by the
     * grid's thread count, each point's indices recovered by division. Both paths run every point once. The second
     * keeps three 64-bit values across its iterations where nested strided loops keep twelve: the assembler sizes
     * the kernel's registers for its busiest path, and fewer registers let more threads run at once on the first
     * path, the one every launch whose grid covers the nest takes.
     */
    boolean emit(Mapping.Level level, String end) {
        Mapping m = em.region.mapping();
        if (!KernelEmitter.points(m) || !em.oncePerThread()
                || m.levels().size() != 3 || m.levels().get(0) != level) {
            return false;
        }
        Stmt.For[] loops = new Stmt.For[3];
        Mapping.Level[] byAxis = new Mapping.Level[3];
        for (int q = 0; q < 3; q++) {
            Mapping.Level l = m.levels().get(q);
            loops[q] = l.outer();
            if (l.loops().size() != 1 || l.gridAxis() != l.blockAxis() || l.gridAxis() == Mapping.NONE
                    || byAxis[l.gridAxis()] != null || loops[q].index().type() != Type.I32
                    || (q > 0 && !loops[q - 1].body().equals(List.of(loops[q])))) {
                return false;
            }
            byAxis[l.gridAxis()] = l;
        }
        if (Dataflow.arrayUses(List.of(loops[0])).keySet().stream().anyMatch(a -> a.dims() != 1)) {
            return false;
        }
        w.comment(em.where(loops[0].line()) + "for " + loops[0].index().name() + ", " + loops[1].index().name() + ", "
                + loops[2].index().name() + ": one point per thread where the grid covers the nest, else the points "
                + "in linear order by the grid's thread count");
        Reg[] lo = new Reg[3];
        Reg[] lo64 = new Reg[3];
        Reg[] trips = new Reg[3];
        Reg[] t = new Reg[3];
        Reg covers = w.reg(Type.PRED);
        Reg outside = w.reg(Type.PRED);
        for (int q = 0; q < 3; q++) {
            Stmt.For f = loops[q];
            lo[q] = em.expr(f.lower());
            lo64[q] = Trips.wide(w, lo[q], true);
            trips[q] = Trips.count(w, f, lo64[q], Trips.wide(w, em.expr(f.bound()), true));
            String axis = Mapping.AXES[m.levels().get(q).gridAxis()];
            Reg ntid = em.special("%ntid." + axis);
            t[q] = w.reg(Type.I64);
            Reg stride = w.reg(Type.I64);
            Reg tid64 = w.reg(Type.I64);
            w.op("mul.wide.u32", t[q], em.special("%ctaid." + axis), ntid);
            w.op("cvt.u64.u32", tid64, em.special("%tid." + axis));
            w.op("add.s64", t[q], t[q], tid64);
            w.op("mul.wide.u32", stride, em.special("%nctaid." + axis), ntid);
            Reg c = w.reg(Type.PRED);
            Reg o = w.reg(Type.PRED);
            w.setp("ge", "s64", c, stride, trips[q]);
            if (axis.equals("x") && org.acc4j.compiler.pass.PointBlock.MAPPING_ALIGNED.equals(m.name())) {
                t[q] = alignedX(lo[q], trips[q], t[q], stride);
                Reg before = w.reg(Type.PRED);
                w.setp("lt", "s64", before, t[q], 0);
                w.setp("ge", "s64", o, t[q], trips[q]);
                w.op("or.pred", o, o, before);
            } else {
                w.setp("ge", "s64", o, t[q], trips[q]);
            }
            if (q == 0) {
                w.op("mov.pred", covers, c);
                w.op("mov.pred", outside, o);
            } else {
                w.op("and.pred", covers, covers, c);
                w.op("or.pred", outside, outside, o);
            }
        }
        String strided = w.newLabel("points_strided");
        w.braIf(covers, false, strided);
        w.braIf(outside, true, end);
        for (int q = 0; q < 3; q++) {
            pointIndex(loops[q], lo[q], t[q]);
        }
        em.statements(loops[2].body());
        w.bra(end);
        em.mem.label(strided);
        // the thread's place among all the grid's threads, x fastest, and that count
        Reg block = w.reg(Type.I64);
        Reg count = w.reg(Type.I64);
        Reg inBlock = w.reg(Type.I64);
        Reg perBlock = w.reg(Type.I64);
        Reg v = w.reg(Type.I64);
        w.op("cvt.u64.u32", block, em.special("%ctaid.z"));
        w.op("cvt.u64.u32", count, em.special("%nctaid.z"));
        w.op("cvt.u64.u32", inBlock, em.special("%tid.z"));
        w.op("cvt.u64.u32", perBlock, em.special("%ntid.z"));
        for (String axis : new String[] {"y", "x"}) {
            w.op("cvt.u64.u32", v, em.special("%nctaid." + axis));
            w.op("mul.lo.s64", block, block, v);
            w.op("mul.lo.s64", count, count, v);
            w.op("cvt.u64.u32", v, em.special("%ctaid." + axis));
            w.op("add.s64", block, block, v);
            w.op("cvt.u64.u32", v, em.special("%ntid." + axis));
            w.op("mul.lo.s64", inBlock, inBlock, v);
            w.op("mul.lo.s64", perBlock, perBlock, v);
            w.op("cvt.u64.u32", v, em.special("%tid." + axis));
            w.op("add.s64", inBlock, inBlock, v);
        }
        Reg p = w.reg(Type.I64);
        Reg step = w.reg(Type.I64);
        w.op("mad.lo.s64", p, block, perBlock, inBlock);
        w.op("mul.lo.s64", step, count, perBlock);
        Reg tx = trips[levelAt(byAxis[0])];
        Reg ty = trips[levelAt(byAxis[1])];
        Reg total = w.reg(Type.I64);
        w.op("mul.lo.s64", total, tx, ty);
        w.op("mul.lo.s64", total, total, trips[levelAt(byAxis[2])]);
        String head = w.newLabel("points");
        em.mem.label(head);
        Reg done = w.reg(Type.PRED);
        w.setp("ge", "u64", done, p, total);
        w.braIf(done, true, end);
        Reg[] at = new Reg[3];
        Reg rest = w.reg(Type.I64);
        at[0] = w.reg(Type.I64);
        at[1] = w.reg(Type.I64);
        at[2] = w.reg(Type.I64);
        w.op("rem.u64", at[0], p, tx);
        w.op("div.u64", rest, p, tx);
        w.op("rem.u64", at[1], rest, ty);
        w.op("div.u64", at[2], rest, ty);
        for (int q = 0; q < 3; q++) {
            pointIndex(loops[q], lo[q], at[m.levels().get(q).gridAxis()]);
        }
        em.statements(loops[2].body());
        w.op("add.s64", p, p, step);
        w.bra(head);
        return true;
    }

    /**
     * The x thread's iteration when the x threads start at the row element {@code lo & ~31} ({@code lo} at least 0):
     * {@code t - (lo & 31)}, negative for the threads before {@code lo}; unshifted when the grid's x threads do not
     * reach {@code trips + (lo & 31)}, so that every iteration still has its thread.
     */
    private Reg alignedX(Reg lo, Reg trips, Reg t, Reg stride) {
        Reg d = w.reg(Type.I32);
        Reg neg = w.reg(Type.PRED);
        w.op("and.b32", d, lo, 31);
        w.setp("lt", "s32", neg, lo, 0);
        w.op("selp.b32", d, 0, d, neg);
        Reg d64 = w.reg(Type.I64);
        w.op("cvt.u64.u32", d64, d);
        Reg span = w.reg(Type.I64);
        w.op("add.s64", span, trips, d64);
        Reg fits = w.reg(Type.PRED);
        w.setp("ge", "s64", fits, stride, span);
        w.op("selp.b64", d64, d64, 0, fits);
        Reg shifted = w.reg(Type.I64);
        w.op("sub.s64", shifted, t, d64);
        return shifted;
    }

    private int levelAt(Mapping.Level l) {
        return em.region.mapping().levels().indexOf(l);
    }

    /** The 32-bit index of {@code f} at {@code lo + q}: Java's index value, so the 32-bit sum is exact. */
    private void pointIndex(Stmt.For f, Reg lo, Reg q) {
        Reg q32 = w.reg(Type.I32);
        w.op("cvt.u32.u64", q32, q);
        if (f.step() == 1) {
            w.op("add.s32", em.var(f.index()), lo, q32);
        } else {
            w.op("mad.lo.s32", em.var(f.index()), q32, f.step(), lo);
        }
        em.mem.forget(f.index());
    }

}
