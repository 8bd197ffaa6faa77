package org.acc4j.compiler.ptx;

import org.acc4j.compiler.ir.Type;

/**
 * The lane arithmetic of a {@link org.acc4j.compiler.ir.RowGroup} kernel: groups of {@code G = 2^p_lanes_log}
 * consecutive threads of the x axis (whole warps per block, so a group never straddles warps), the group's row
 * {@code (ctaid.x * ntid.x + tid.x) >> p_lanes_log} striding by {@code (nctaid.x * ntid.x) >> p_lanes_log}, the lane
 * {@code tid.x & (G - 1)}, and the shuffle mask of the group's lanes within its warp.
 */
final class RowLanes {
    /** Where a lane that fails inside the inner loop records its error. */
    static final String RAISE = "$L_lane_raise";
    /** After the inner loop: the group's shuffles. */
    static final String REJOIN = "$L_lane_rejoin";

    private final Reg row;
    private final Reg stride;
    private final Reg lanes;
    private final Reg lanes64;
    private final Reg lane64;
    private final Reg member;
    private final Reg notFirst;

    private RowLanes(Reg row, Reg stride, Reg lanes, Reg lanes64, Reg lane64, Reg member, Reg notFirst) {
        this.row = row;
        this.stride = stride;
        this.lanes = lanes;
        this.lanes64 = lanes64;
        this.lane64 = lane64;
        this.member = member;
        this.notFirst = notFirst;
    }

    /** Reads {@code p_lanes_log} and computes the group's first row, stride, lane and mask. */
    static RowLanes start(PtxWriter w, Reg ctaid, Reg ntid, Reg tid, Reg nctaid, Reg laneid) {
        Reg log = w.reg(Type.I32);
        w.ldParam("u32", log, "p_lanes_log");
        Reg row = w.reg(Type.I64);
        Reg tid64 = w.reg(Type.I64);
        w.op("mul.wide.u32", row, ctaid, ntid);
        w.op("cvt.u64.u32", tid64, tid);
        w.op("add.s64", row, row, tid64);
        w.op("shr.u64", row, row, log);
        Reg stride = w.reg(Type.I64);
        w.op("mul.wide.u32", stride, nctaid, ntid);
        w.op("shr.u64", stride, stride, log);
        Reg lanes = w.reg(Type.I32);
        w.op("shl.b32", lanes, 1, log);
        Reg lanes64 = w.reg(Type.I64);
        w.op("cvt.u64.u32", lanes64, lanes);
        Reg low = w.reg(Type.I32);
        w.op("sub.s32", low, lanes, 1);
        Reg lane = w.reg(Type.I32);
        w.op("and.b32", lane, tid, low);
        Reg lane64 = w.reg(Type.I64);
        w.op("cvt.u64.u32", lane64, lane);
        // the group's lanes in its warp: G ones shifted to the group's first lane (shl clamps a shift of 32 to 0 - 1)
        Reg ones = w.reg(Type.I32);
        w.op("shl.b32", ones, 1, lanes);
        w.op("sub.s32", ones, ones, 1);
        Reg first = w.reg(Type.I32);
        Reg high = w.reg(Type.I32);
        w.op("not.b32", high, low);
        w.op("and.b32", first, laneid, high);
        Reg member = w.reg(Type.I32);
        w.op("shl.b32", member, ones, first);
        Reg notFirst = w.reg(Type.PRED);
        w.setp("ne", "u32", notFirst, lane, 0);
        return new RowLanes(row, stride, lanes, lanes64, lane64, member, notFirst);
    }

    /** The group's current row, counted from the loop's first (s64). */
    Reg row() {
        return row;
    }

    /** The group's size as an s64. */
    Reg lanes64() {
        return lanes64;
    }

    /** This thread's lane in its group as an s64. */
    Reg lane64() {
        return lane64;
    }

    /** True in every lane but the group's first. */
    Reg notFirst() {
        return notFirst;
    }

    /** The group's next row. */
    void next(PtxWriter w) {
        w.op("add.s64", row, row, stride);
    }

    /**
     * Adds {@code s} across the group by butterfly shuffles (distance G/2, G/4, ..., 1): every lane ends with the
     * same value, since each step adds the same two operands in every lane of a pair.
     */
    void addAcross(PtxWriter w, Reg s) {
        Type t = s.type();
        Reg off = w.reg(Type.I32);
        Reg done = w.reg(Type.PRED);
        w.op("shr.u32", off, lanes, 1);
        String head = w.newLabel("lanes_add");
        String end = w.newLabel("lanes_added");
        w.label(head);
        w.setp("eq", "u32", done, off, 0);
        w.braIf(done, true, end);
        Reg other = w.reg(t);
        if (t.bytes() == 4) {
            w.raw("shfl.sync.bfly.b32 " + other + ", " + s + ", " + off + ", 31, " + member);
        } else {
            Reg lo = w.reg(Type.I32);
            Reg hi = w.reg(Type.I32);
            w.raw("mov.b64 {" + lo + ", " + hi + "}, " + s);
            w.raw("shfl.sync.bfly.b32 " + lo + ", " + lo + ", " + off + ", 31, " + member);
            w.raw("shfl.sync.bfly.b32 " + hi + ", " + hi + ", " + off + ", 31, " + member);
            w.raw("mov.b64 " + other + ", {" + lo + ", " + hi + "}");
        }
        w.op(t.isFloat() ? "add.rn." + t.ptx() : "add." + t.ptx(), s, s, other);
        w.op("shr.u32", off, off, 1);
        w.bra(head);
        w.label(end);
    }

    /** The failing lane's exit: the first error wins the record; the lane then joins its group's shuffles. */
    static void raise(PtxWriter w, Reg errBase, Reg errCode, Reg errDetail) {
        Reg old = w.reg(Type.I32);
        Reg lost = w.reg(Type.PRED);
        w.label(RAISE);
        w.atomCas(old, errBase, 0, errCode);
        w.setp("ne", "s32", lost, old, 0);
        w.predicated(lost, false, "st.global.b64 [" + errBase + "+8], " + errDetail);
        w.bra(REJOIN);
    }
}
