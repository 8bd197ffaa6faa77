package org.acc4j.compiler.ptx;

import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Tiling;

/**
 * The FP64 tensor-core matmul kernel of {@link Tiling} (under {@code relaxed} on sm_90), in the shape of
 * {@link Tiling.TensorTile}; written with {@link TiledEmitter}'s registers, parameters and subscript forms.
 *
 * <p>Blocks of {@code warpsI × warpsJ} warps take the {@code blockI × blockJ} tiles of C from {@code (bx, by)} by
 * the grid, or, with a {@code group}, by their linear number over the tiles taken in bands of {@code group} rows of
 * tiles, column by column in each band (blocks that run at the same time then share more of A's and B's panels in
 * L2). Each warp computes its {@code 16 tilesI × 8 tilesJ} part as {@code tilesI × tilesJ} tiles of
 * {@code mma.sync.aligned.m16n8k<K>.row.col.f64}, its accumulators in registers in the instruction's layout (lane
 * {@code l}: rows {@code l / 4} and {@code l / 4 + 8}, columns {@code 2 (l % 4)} and one more). A k-deep fragment
 * is K/4 fragments of 4 along k (element {@code 2u + h} of A at row {@code l / 4 + 8h}, column {@code 4u + l % 4};
 * element {@code u} of B at row {@code 4u + l % 4}, column {@code l / 4}).
 *
 * <p>The k range is taken {@code depth} at a time. A's tile is kept as it lies in memory (i by k) and so is B's
 * (k by j), both unpadded, in {@code stages} buffers; one routine, {@link #copyTile}, fills a buffer of either:
 * each thread copies pairs of adjacent elements along the row with one 16-byte {@code cp.async.cg} where the pair
 * is contiguous, 16-byte aligned and inside the ranges, else element by element with {@code cp.async.ca}, whose
 * source size 0 stores the 0 of an element outside the ranges. Rows are XOR-swizzled: the column of element
 * {@code (r, c)} in a row of {@code n} is {@code c xor 4 ((r / max(1, 16 / n)) mod min(4, n / 4))}, which keeps
 * pairs together and puts the 16 lanes of each half of a fragment load on distinct 8-byte banks. While the warps
 * multiply k tile {@code t}, the copies of tiles up to {@code t + stages - 1} are in flight; one
 * {@code cp.async.wait_group} and one barrier per k tile. Outside the ranges the staged values are 0 (0 × 0 adds
 * nothing to an element that is stored), and nothing is stored.
 *
 * <p>With {@code affineCopies}, a thread's copies of a full k tile are issued from addresses stepped by registers
 * (computed once per C tile, {@link #affine}) where the operand's addresses are affine and aligned; with
 * {@code loadsFirst}, a k tile's first fragments are loaded before the copies of the tile ahead are issued; with
 * {@code pipelined}, the fragments of each K step are loaded while the previous step's mma run, across k tiles
 * too (the barrier of a k tile then comes before its last step's mma).
 */
final class TensorTiles extends TiledEmitter {
    TensorTiles(MethodBody body, List<KernelParam> params) {
        super(body, params);
    }

    /** One operand's shared tile and this thread's part of its copy. */
    private record Operand(Tiling.Access access, Var rowVar, Var colVar, String[] rowRange, String[] colRange,
                           FormRegs row, FormRegs index, String rowStart, String colStart, String row0,
                           String col0, int rowStride, String[] dst, int[] dstOff) {
    }

    String tensorBody(Tiling.Matmul t) {
        Tiling.TensorTile s = t.tensor();
        int bi = s.blockI();
        int bj = s.blockJ();
        int bk = s.depth();
        int stages = s.stages();
        int threads = s.threads();
        int mT = s.tilesI();
        int nT = s.tilesJ();
        int kk = s.mmaK();
        int aBytes = bi * bk * 8;
        int stageBytes = (bi + bj) * bk * 8;
        // beyond the static limit the stages are the launch's dynamic shared memory (s.sharedBytes() of it)
        if (s.dynamic()) {
            moduleScope = ".extern .shared .align 128 .b8 tiles[];\n\n";
        } else {
            code.append("\t.shared .align 128 .b8 tiles[").append(stages * stageBytes).append("];\n");
        }
        MatmulRegs nest = matmulRegs(t, bi, bj, bk);
        String tid = r();
        op("mov.u32 " + tid + ", %tid.x");
        String lane = r();
        String warp = r();
        String g = r();
        String q = r();
        String wm = r();
        String wn = r();
        op("and.b32 " + lane + ", " + tid + ", 31");
        op("shr.u32 " + warp + ", " + tid + ", 5");
        op("shr.u32 " + g + ", " + lane + ", 2");
        op("and.b32 " + q + ", " + lane + ", 3");
        // warp w's part of the C tile: rows from (w / warpsJ) 16 mT, columns from (w % warpsJ) 8 nT
        op("shr.u32 " + wm + ", " + warp + ", " + log2(s.warpsJ()));
        op("mul.lo.u32 " + wm + ", " + wm + ", " + (16 * mT));
        op("and.b32 " + wn + ", " + warp + ", " + (s.warpsJ() - 1));
        op("mul.lo.u32 " + wn + ", " + wn + ", " + (8 * nT));
        String smem = r();
        op("mov.u32 " + smem + ", tiles");
        String i0 = r();
        String j0 = r();
        String k0 = r();
        // A's tile: rows of i from i0, columns of k from k0; B's: rows of k from k0, columns of j from j0
        Operand opA = operand(t.a(), nest.vi(), nest.vk(), nest.ri(), nest.rk(), nest.aRow(), nest.aIdx(), bi, bk, 0,
                i0, k0, tid, threads);
        Operand opB = operand(t.b(), nest.vk(), nest.vj(), nest.rk(), nest.rj(), nest.bRow(), nest.bIdx(), bk, bj,
                aBytes, k0, j0, tid, threads);
        // fragment offsets in a stage: A at row wm + g, column (4u xor swizzle) + q for each 4u of a k tile
        String xa = r();
        op("shr.u32 " + xa + ", " + g + ", " + (bk >= 16 ? 0 : 1));
        op("and.b32 " + xa + ", " + xa + ", " + (bk >= 16 ? 3 : 1));
        op("shl.b32 " + xa + ", " + xa + ", 2");
        String aRowOff = r();
        op("add.u32 " + aRowOff + ", " + wm + ", " + g);
        op("mul.lo.u32 " + aRowOff + ", " + aRowOff + ", " + bk);
        op("add.u32 " + aRowOff + ", " + aRowOff + ", " + q);
        String[] aOff = new String[bk / 4];
        for (int u = 0; u < aOff.length; u++) {
            aOff[u] = r();
            op("xor.b32 " + aOff[u] + ", " + xa + ", " + (4 * u));
            op("add.u32 " + aOff[u] + ", " + aOff[u] + ", " + aRowOff);
            op("shl.b32 " + aOff[u] + ", " + aOff[u] + ", 3");
        }
        // B at row q, column wn + ((8e + g) xor 4q) for the n8 tiles of parity e (wn is a multiple of 16)
        String[] bOff = new String[2];
        String v = r();
        op("shl.b32 " + v + ", " + q + ", 2");
        op("xor.b32 " + v + ", " + v + ", " + g);
        for (int e = 0; e < 2; e++) {
            bOff[e] = r();
            op("xor.b32 " + bOff[e] + ", " + v + ", " + (8 * e));
            op("add.u32 " + bOff[e] + ", " + bOff[e] + ", " + wn);
            op("mad.lo.u32 " + bOff[e] + ", " + q + ", " + bj + ", " + bOff[e]);
            op("shl.b32 " + bOff[e] + ", " + bOff[e] + ", 3");
            op("add.u32 " + bOff[e] + ", " + bOff[e] + ", " + aBytes);
        }
        String nctaX = r();
        String nctaY = r();
        op("mov.u32 " + nctaX + ", %nctaid.x");
        op("mov.u32 " + nctaY + ", %nctaid.y");
        String tiReg = r();
        String tjReg = r();
        String stop = p();
        // accumulators: [mt][nt][e], e as the instruction's C fragment
        String[] acc = new String[mT * nT * 4];
        for (int n = 0; n < acc.length; n++) {
            acc[n] = fd();
        }
        String init = fd();
        op("mov.f64 " + init + ", 0d" + String.format("%016X", t.accumulate() ? 0L : t.init().bits()));
        int group = s.group();
        String tile = group == 0 ? null : r();
        if (group == 0) {
            op("mov.u32 " + tiReg + ", %ctaid.y");
            label("$L_ti");
            op("setp.ge.u32 " + stop + ", " + tiReg + ", " + nest.tilesI());
            op("@" + stop + " bra $L_exit");
            op("mov.u32 " + tjReg + ", %ctaid.x");
            label("$L_tj");
            op("setp.ge.u32 " + stop + ", " + tjReg + ", " + nest.tilesJ());
            op("@" + stop + " bra $L_next_ti");
        } else {
            // the block's linear number takes the C tiles in bands of `group` rows, down each band's columns
            String tileCount = r();
            String ctaX = r();
            String ctaY = r();
            op("mov.u32 " + ctaX + ", %ctaid.x");
            op("mov.u32 " + ctaY + ", %ctaid.y");
            op("mad.lo.u32 " + tile + ", " + ctaY + ", " + nctaX + ", " + ctaX);
            op("mul.lo.u32 " + tileCount + ", " + nest.tilesI() + ", " + nest.tilesJ());
            label("$L_tile");
            op("setp.ge.u32 " + stop + ", " + tile + ", " + tileCount);
            op("@" + stop + " bra $L_exit");
            String perBand = r();
            String band = r();
            String rest = r();
            String size = r();
            op("mul.lo.u32 " + perBand + ", " + nest.tilesJ() + ", " + group);
            op("div.u32 " + band + ", " + tile + ", " + perBand);
            op("mul.lo.u32 " + rest + ", " + band + ", " + perBand);
            op("sub.u32 " + rest + ", " + tile + ", " + rest);
            op("mul.lo.u32 " + band + ", " + band + ", " + group);
            op("sub.u32 " + size + ", " + nest.tilesI() + ", " + band);
            op("min.u32 " + size + ", " + size + ", " + group);
            op("rem.u32 " + tiReg + ", " + rest + ", " + size);
            op("add.u32 " + tiReg + ", " + tiReg + ", " + band);
            op("div.u32 " + tjReg + ", " + rest + ", " + size);
        }
        op("shl.b32 " + i0 + ", " + tiReg + ", " + log2(bi));
        op("shl.b32 " + j0 + ", " + tjReg + ", " + log2(bj));
        // this thread's rows and columns of C: i0 + wm + g (+ 16 mt, + 8), j0 + wn + 2 q (+ 8 nt, + 1)
        String iBase = r();
        String jBase = r();
        op("add.u32 " + iBase + ", " + i0 + ", " + wm);
        op("add.u32 " + iBase + ", " + iBase + ", " + g);
        op("add.u32 " + jBase + ", " + j0 + ", " + wn);
        op("mad.lo.u32 " + jBase + ", " + q + ", 2, " + jBase);
        for (String a : acc) {
            op("mov.f64 " + a + ", " + init);
        }
        if (t.accumulate()) {
            for (int n = 0; n < acc.length; n++) {
                String[] at = tensorElement(t, n, nT, iBase, jBase, nest);
                op("@!" + at[1] + " ld.global.f64 " + acc[n] + ", [" + at[0] + "]");
            }
        }
        // where the copies step along k: their addresses for this C tile, and whether they hold
        Affine affA = null;
        Affine affB = null;
        String fullK = null;
        if (s.affineCopies()) {
            fullK = r();
            op("shr.u32 " + fullK + ", " + nest.rk()[1] + ", " + log2(bk));
            affA = affine(opA, k0, bk, true, inside(i0, bi, nest.ri()[1]), fullK);
            affB = affine(opB, k0, bk, false, inside(j0, bj, nest.rj()[1]), fullK);
        }
        // the previous C tile's copies and reads are over before its buffers are filled again
        op("cp.async.wait_all");
        op("bar.sync 0");
        // the first stages - 1 k tiles, one commit group each (empty past the range)
        for (int st = 0; st < stages - 1; st++) {
            String has = p();
            op("setp.gt.u32 " + has + ", " + nest.tilesK() + ", " + st);
            op("@!" + has + " bra $L_pro" + st);
            op("mov.u32 " + k0 + ", " + (st * bk));
            String at = r();
            op("add.u32 " + at + ", " + smem + ", " + (st * stageBytes));
            String ahead = null;
            if (fullK != null) {
                ahead = r();
                op("mov.u32 " + ahead + ", " + st);
            }
            copy(opA, affA, at, ahead, fullK);
            copy(opB, affB, at, ahead, fullK);
            label("$L_pro" + st);
            op("cp.async.commit_group");
        }
        String kt = r();
        String rs = r();
        String ws = r();
        Frags frags = new Frags(aOff, bOff, mT, nT, kk, bk, bj, acc);
        Affine copyA = affA;
        Affine copyB = affB;
        String kTiles = fullK;
        if (s.pipelined()) {
            // tile 0 has landed; tile stages - 1 goes to the stage no tile has used yet; tile 0's first fragments
            op("cp.async.wait_group " + (stages - 2));
            op("bar.sync 0");
            String first = r();
            op("mov.u32 " + first + ", " + (stages - 1));
            String firstAt = r();
            op("add.u32 " + firstAt + ", " + smem + ", " + ((stages - 1) * stageBytes));
            copyAhead(opA, opB, copyA, copyB, first, nest.tilesK(), k0, bk, firstAt, kTiles, "$L_first");
            String[][][] carry = frags.load(smem, 0, null);
            op("mov.u32 " + kt + ", 0");
            op("mov.u32 " + rs + ", 0");
            label("$L_kt");
            op("setp.ge.u32 " + stop + ", " + kt + ", " + nest.tilesK());
            op("@" + stop + " bra.uni $L_store");
            String rAt = r();
            op("mad.lo.u32 " + rAt + ", " + rs + ", " + stageBytes + ", " + smem);
            String[][][] cur = carry;
            for (int ks = 0; ks < bk / kk; ks++) {
                String[][][] next;
                if (ks < bk / kk - 1) {
                    next = frags.load(rAt, ks + 1, null);
                } else {
                    // every warp has its fragments of tile kt: tile kt + 1 has landed, and tile kt + stages goes to
                    // kt's stage; tile kt + 1's first fragments load while kt's last mma run
                    op("cp.async.wait_group " + (stages - 2));
                    op("bar.sync 0");
                    String ahead = r();
                    op("add.u32 " + ahead + ", " + kt + ", " + stages);
                    copyAhead(opA, opB, copyA, copyB, ahead, nest.tilesK(), k0, bk, rAt, kTiles, "$L_nocopy");
                    String rn = r();
                    op("add.u32 " + rn + ", " + rs + ", 1");
                    String wrap = p();
                    op("setp.eq.u32 " + wrap + ", " + rn + ", " + stages);
                    op("selp.u32 " + rn + ", 0, " + rn + ", " + wrap);
                    String nAt = r();
                    op("mad.lo.u32 " + nAt + ", " + rn + ", " + stageBytes + ", " + smem);
                    next = frags.load(nAt, 0, carry);
                }
                frags.mma(cur);
                cur = next;
            }
            op("add.u32 " + kt + ", " + kt + ", 1");
            step(rs, stages);
            op("bra.uni $L_kt");
        } else {
            op("mov.u32 " + kt + ", 0");
            op("mov.u32 " + rs + ", 0");
            op("mov.u32 " + ws + ", " + (stages - 1));
            label("$L_kt");
            op("setp.ge.u32 " + stop + ", " + kt + ", " + nest.tilesK());
            op("@" + stop + " bra.uni $L_store");
            // k tile kt has landed for every thread, and every warp is done with the stage about to be refilled
            op("cp.async.wait_group " + (stages - 2));
            op("bar.sync 0");
            // the copies of k tile kt + stages - 1 into the stage ws, one commit group (empty past the range)
            Runnable copies = () -> {
                String ahead = r();
                op("add.u32 " + ahead + ", " + kt + ", " + (stages - 1));
                String wAt = r();
                op("mad.lo.u32 " + wAt + ", " + ws + ", " + stageBytes + ", " + smem);
                copyAhead(opA, opB, copyA, copyB, ahead, nest.tilesK(), k0, bk, wAt, kTiles, "$L_nocopy");
            };
            if (!s.loadsFirst()) {
                copies.run();
            }
            String rAt = r();
            op("mad.lo.u32 " + rAt + ", " + rs + ", " + stageBytes + ", " + smem);
            // depth / K steps of k, each mT x nT mma of 16x8xK
            for (int ks = 0; ks < bk / kk; ks++) {
                String[][][] f = frags.load(rAt, ks, null);
                if (ks == 0 && s.loadsFirst()) {
                    // the first fragments are on their way while the copies are issued
                    copies.run();
                }
                frags.mma(f);
            }
            op("add.u32 " + kt + ", " + kt + ", 1");
            step(rs, stages);
            step(ws, stages);
            op("bra.uni $L_kt");
        }
        label("$L_store");
        for (int n = 0; n < acc.length; n++) {
            String[] at = tensorElement(t, n, nT, iBase, jBase, nest);
            op("@!" + at[1] + " st.global.f64 [" + at[0] + "], " + acc[n]);
        }
        if (group == 0) {
            op("add.u32 " + tjReg + ", " + tjReg + ", " + nctaX);
            op("bra.uni $L_tj");
            label("$L_next_ti");
            op("add.u32 " + tiReg + ", " + tiReg + ", " + nctaY);
            op("bra.uni $L_ti");
        } else {
            String blocks = r();
            op("mul.lo.u32 " + blocks + ", " + nctaX + ", " + nctaY);
            op("add.u32 " + tile + ", " + tile + ", " + blocks);
            op("bra.uni $L_tile");
        }
        label("$L_exit");
        op("ret");
        return code.toString();
    }

    /** The predicate {@code start + size <= count}: a tile from {@code start} lies inside the range. */
    private String inside(String start, int size, String count) {
        String end = r();
        op("add.u32 " + end + ", " + start + ", " + size);
        String in = p();
        op("setp.le.u32 " + in + ", " + end + ", " + count);
        return in;
    }

    /**
     * A thread's copies of one operand for the C tile at hand, as steps: {@code next} is the global address of its
     * first pair in the next k tile to copy, {@code rowStep} the distance from one of its pairs to the next
     * ({@code rowStride} rows on), {@code kStep} from one k tile to the next; {@code fast} holds where these
     * describe every full k tile: the tile lies inside the range along the operand's other axis, a pair's elements
     * are adjacent, every address is 16-byte aligned, and the address the general path computes for the thread's
     * last pair of the last full k tile is the one the steps give.
     */
    private record Affine(String next, String rowStep, String kStep, String fast) {
    }

    private Affine affine(Operand o, String k0, int bk, boolean kIsCol, String inside, String fullK) {
        int copies = o.dst().length;
        // the general path's addresses, with no row-table load (where one would be needed, fast is false)
        String noLoad = p();
        op("setp.eq.u32 " + noLoad + ", 0, 0");
        op("mov.u32 " + k0 + ", 0");
        String p0 = at(o, 0, 0, noLoad);
        String pc = at(o, 0, 1, noLoad);
        String rowStep = rd();
        if (copies > 1) {
            op("sub.s64 " + rowStep + ", " + at(o, 1, 0, noLoad) + ", " + p0);
        } else {
            op("mov.u64 " + rowStep + ", 0");
        }
        op("mov.u32 " + k0 + ", " + bk);
        String kStep = rd();
        op("sub.s64 " + kStep + ", " + at(o, 0, 0, noLoad) + ", " + p0);
        // the last pair of the last full k tile, by the general path and by the steps
        String last = r();
        op("add.u32 " + last + ", " + fullK + ", -1");
        op("shl.b32 " + k0 + ", " + last + ", " + log2(bk));
        String far = at(o, copies - 1, 0, noLoad);
        String stepped = rd();
        op("cvt.u64.u32 " + stepped + ", " + last);
        op("mul.lo.s64 " + stepped + ", " + stepped + ", " + kStep);
        String rows = rd();
        op("mul.lo.s64 " + rows + ", " + rowStep + ", " + (copies - 1));
        op("add.s64 " + stepped + ", " + stepped + ", " + rows);
        op("add.s64 " + stepped + ", " + stepped + ", " + p0);
        String fast = p();
        op("setp.eq.and.u64 " + fast + ", " + far + ", " + stepped + ", " + inside);
        String gap = rd();
        op("sub.s64 " + gap + ", " + pc + ", " + p0);
        op("setp.eq.and.u64 " + fast + ", " + gap + ", 8, " + fast);
        String low = rd();
        op("or.b64 " + low + ", " + p0 + ", " + rowStep);
        op("or.b64 " + low + ", " + low + ", " + kStep);
        op("and.b64 " + low + ", " + low + ", 15");
        op("setp.eq.and.u64 " + fast + ", " + low + ", 0, " + fast);
        String[] layout = o.access().row() == null ? null : blocks.get(o.access().array());
        if (o.access().row() != null) {
            if (layout == null) {
                // rows from a row table: no steps
                op("setp.ne.u32 " + fast + ", 0, 0");
            } else {
                op("and.pred " + fast + ", " + fast + ", " + layout[2]);
            }
        }
        return new Affine(p0, rowStep, kStep, fast);
    }

    /** The general path's address of this thread's pair {@code n} (its second element where {@code dc} is 1). */
    private String at(Operand o, int n, int dc, String noLoad) {
        String row = r();
        op("add.u32 " + row + ", " + o.rowStart() + ", " + o.row0());
        if (n > 0) {
            op("add.u32 " + row + ", " + row + ", " + (n * o.rowStride()));
        }
        String rv = r();
        op("add.s32 " + rv + ", " + o.rowRange()[0] + ", " + row);
        String cv = r();
        op("add.u32 " + cv + ", " + o.colStart() + ", " + o.col0());
        op("add.s32 " + cv + ", " + o.colRange()[0] + ", " + cv);
        if (dc > 0) {
            op("add.s32 " + cv + ", " + cv + ", " + dc);
        }
        return address(o.access().array(), o.row(), o.index(), Map.of(o.rowVar(), rv, o.colVar(), cv), noLoad);
    }

    private int copyLabels;

    /**
     * This thread's copies of one operand's k tile {@code ahead} (the one at {@code k0}) into the stage at
     * {@code stage}: by the steps of {@code aff} where they hold for it, else by {@link #copyTile}; the steps then
     * move on to the next k tile.
     */
    private void copy(Operand o, Affine aff, String stage, String ahead, String fullK) {
        if (aff == null) {
            copyTile(o, stage);
            return;
        }
        int n0 = copyLabels++;
        String fast = p();
        op("setp.lt.and.u32 " + fast + ", " + ahead + ", " + fullK + ", " + aff.fast());
        op("@!" + fast + " bra $L_general" + n0);
        String src = aff.next();
        Map<String, String> ats = new java.util.HashMap<>();
        for (int n = 0; n < o.dst().length; n++) {
            if (n > 0) {
                String s = rd();
                op("add.s64 " + s + ", " + src + ", " + aff.rowStep());
                src = s;
            }
            String at = sharedAt(o, n, stage, ats);
            op("cp.async.cg.shared.global [" + at + "], [" + src + "], 16");
        }
        op("bra.uni $L_copied" + n0);
        label("$L_general" + n0);
        copyTile(o, stage);
        label("$L_copied" + n0);
        op("add.s64 " + aff.next() + ", " + aff.next() + ", " + aff.kStep());
    }

    /**
     * The shared address of copy {@code n} of an operand in the stage at {@code stage}, as {@code reg+offset}: one
     * register per distinct offset register of the operand ({@code ats} keeps them).
     */
    private String sharedAt(Operand o, int n, String stage, Map<String, String> ats) {
        String reg = ats.computeIfAbsent(o.dst()[n], d -> {
            String at = r();
            op("add.u32 " + at + ", " + stage + ", " + d);
            return at;
        });
        return reg + "+" + o.dstOff()[n];
    }

    /**
     * The copies of k tile {@code ahead} into the stage at {@code at}, one commit group (empty where the tile lies
     * past the range).
     */
    private void copyAhead(Operand a, Operand b, Affine affA, Affine affB, String ahead, String tilesK, String k0,
                           int bk, String at, String fullK, String skipLabel) {
        String has = p();
        op("setp.lt.u32 " + has + ", " + ahead + ", " + tilesK);
        op("@!" + has + " bra.uni " + skipLabel);
        op("shl.b32 " + k0 + ", " + ahead + ", " + log2(bk));
        copy(a, affA, at, ahead, fullK);
        copy(b, affB, at, ahead, fullK);
        label(skipLabel);
        op("cp.async.commit_group");
    }

    /**
     * A warp's fragment loads and mma for one K-deep step of a k tile: A's fragments at the offsets {@code aOff} (one
     * per 4 of k), B's at {@code bOff} (one per parity of the n8 tile), from a stage's shared address.
     */
    private final class Frags {
        private final String[] aOff;
        private final String[] bOff;
        private final int mT;
        private final int nT;
        private final int kk;
        private final int bk;
        private final int bj;
        private final String[] acc;

        Frags(String[] aOff, String[] bOff, int mT, int nT, int kk, int bk, int bj, String[] acc) {
            this.aOff = aOff;
            this.bOff = bOff;
            this.mT = mT;
            this.nT = nT;
            this.kk = kk;
            this.bk = bk;
            this.bj = bj;
            this.acc = acc;
        }

        /** Step {@code ks}'s fragments {A[mt][..], B[nt][..]} of the stage at {@code stage}, into {@code into}'s registers. */
        String[][][] load(String stage, int ks, String[][][] into) {
            String[][] af = new String[mT][];
            String[][] bf = new String[nT][];
            for (int mt = 0; mt < mT; mt++) {
                af[mt] = new String[2 * kk / 4];
            }
            for (int nt = 0; nt < nT; nt++) {
                bf[nt] = new String[kk / 4];
            }
            Map<Integer, String> aAt = new java.util.HashMap<>();
            for (int mt = 0; mt < mT; mt++) {
                for (int u = 0; u < kk / 4; u++) {
                    int k4 = ks * kk / 4 + u;
                    String at = aAt.computeIfAbsent(k4, x -> {
                        String reg = r();
                        op("add.u32 " + reg + ", " + stage + ", " + aOff[x]);
                        return reg;
                    });
                    for (int h = 0; h < 2; h++) {
                        af[mt][2 * u + h] = into != null ? into[0][mt][2 * u + h] : fd();
                        op("ld.shared.f64 " + af[mt][2 * u + h] + ", [" + at + "+" + ((mt * 16 + 8 * h) * bk * 8) + "]");
                    }
                }
            }
            String[] bAt = new String[2];
            for (int e = 0; e < 2; e++) {
                bAt[e] = r();
                op("add.u32 " + bAt[e] + ", " + stage + ", " + bOff[e]);
            }
            for (int nt = 0; nt < nT; nt++) {
                for (int u = 0; u < kk / 4; u++) {
                    int kb = (ks * kk / 4 + u) * 4;
                    bf[nt][u] = into != null ? into[1][nt][u] : fd();
                    op("ld.shared.f64 " + bf[nt][u] + ", [" + bAt[nt & 1] + "+" + ((kb * bj + 16 * (nt >> 1)) * 8)
                            + "]");
                }
            }
            return new String[][][] {af, bf};
        }

        /** The {@code mT × nT} mma of one step with fragments {@code f}. */
        void mma(String[][][] f) {
            for (int mt = 0; mt < mT; mt++) {
                for (int nt = 0; nt < nT; nt++) {
                    int base = (mt * nT + nt) * 4;
                    String d = "{" + acc[base] + ", " + acc[base + 1] + ", " + acc[base + 2] + ", " + acc[base + 3] + "}";
                    op("mma.sync.aligned.m16n8k" + kk + ".row.col.f64.f64.f64.f64 " + d + ", {"
                            + String.join(", ", f[0][mt]) + "}, {" + String.join(", ", f[1][nt]) + "}, " + d);
                }
            }
        }
    }

    /** {@code stage = (stage + 1) mod stages}. */
    private void step(String stage, int stages) {
        String wrap = p();
        op("add.u32 " + stage + ", " + stage + ", 1");
        op("setp.eq.u32 " + wrap + ", " + stage + ", " + stages);
        op("selp.u32 " + stage + ", 0, " + stage + ", " + wrap);
    }

    /**
     * An operand of {@code rows × cols} elements at byte {@code offset} of each stage, whose rows and columns start
     * at {@code rowStart}, {@code colStart} from the ranges' starts: thread {@code tid} copies the pairs at row
     * {@code tid / (cols / 2) + n threads / (cols / 2)}, column {@code 2 (tid mod cols / 2)}; their swizzled byte
     * offsets in the tile are computed here once.
     */
    private Operand operand(Tiling.Access access, Var rowVar, Var colVar, String[] rowRange, String[] colRange, FormRegs row,
                            FormRegs index, int rows, int cols, int offset, String rowStart, String colStart,
                            String tid, int threads) {
        int pairs = cols / 2;
        int copies = rows * pairs / threads;
        int rowStride = threads / pairs;
        String r0 = r();
        String c0 = r();
        op("shr.u32 " + r0 + ", " + tid + ", " + log2(pairs));
        op("and.b32 " + c0 + ", " + tid + ", " + (pairs - 1));
        op("shl.b32 " + c0 + ", " + c0 + ", 1");
        String[] dst = new String[copies];
        int[] dstOff = new int[copies];
        // rows rowStride apart share their swizzle where it repeats every rowStride rows: one offset register
        int period = Math.max(1, 16 / cols) * Math.min(4, cols / 4);
        boolean shared = rowStride % period == 0;
        for (int n = 0; n < copies; n++) {
            if (shared && n > 0) {
                dst[n] = dst[0];
                dstOff[n] = n * rowStride * cols * 8;
                continue;
            }
            String rr = r();
            op("add.u32 " + rr + ", " + r0 + ", " + (n * rowStride));
            // the swizzle of row rr: 4 ((rr / max(1, 16 / cols)) mod min(4, cols / 4))
            String x = r();
            op("shr.u32 " + x + ", " + rr + ", " + (cols >= 16 ? 0 : log2(16 / cols)));
            op("and.b32 " + x + ", " + x + ", " + (Math.min(4, cols / 4) - 1));
            op("shl.b32 " + x + ", " + x + ", 2");
            op("xor.b32 " + x + ", " + x + ", " + c0);
            dst[n] = r();
            op("mad.lo.u32 " + dst[n] + ", " + rr + ", " + cols + ", " + x);
            op("shl.b32 " + dst[n] + ", " + dst[n] + ", 3");
            op("add.u32 " + dst[n] + ", " + dst[n] + ", " + offset);
        }
        return new Operand(access, rowVar, colVar, rowRange, colRange, row, index, rowStart, colStart, r0, c0,
                rowStride, dst, dstOff);
    }

    /**
     * Issues this thread's copies of one operand's k tile into the stage at shared address {@code stage}: a pair
     * with one 16-byte {@code cp.async.cg} where both elements are in the ranges, adjacent in memory and 16-byte
     * aligned, else each element with an 8-byte {@code cp.async.ca} that reads nothing and stores 0 outside the
     * ranges.
     */
    private void copyTile(Operand o, String stage) {
        String r0 = o.row0();
        String c0 = o.col0();
        int rowStride = o.rowStride();
        String[] dst = o.dst();
        String data = base(o.access().array());
        // the columns: c and c + 1 in the range or not, and their index values
        String col = r();
        op("add.u32 " + col + ", " + o.colStart() + ", " + c0);
        String col1 = r();
        op("add.u32 " + col1 + ", " + col + ", 1");
        String in0 = p();
        String in1 = p();
        op("setp.lt.u32 " + in0 + ", " + col + ", " + o.colRange()[1]);
        op("setp.lt.u32 " + in1 + ", " + col1 + ", " + o.colRange()[1]);
        String cv0 = r();
        String cv1 = r();
        op("add.s32 " + cv0 + ", " + o.colRange()[0] + ", " + col);
        op("add.s32 " + cv1 + ", " + o.colRange()[0] + ", " + col1);
        Map<String, String> ats = new java.util.HashMap<>();
        for (int n = 0; n < dst.length; n++) {
            String row = r();
            op("add.u32 " + row + ", " + o.rowStart() + ", " + r0);
            if (n > 0) {
                op("add.u32 " + row + ", " + row + ", " + (n * rowStride));
            }
            String skip0 = p();
            String skip1 = p();
            op("setp.ge.or.u32 " + skip0 + ", " + row + ", " + o.rowRange()[1] + ", !" + in0);
            op("setp.ge.or.u32 " + skip1 + ", " + row + ", " + o.rowRange()[1] + ", !" + in1);
            String rv = r();
            op("add.s32 " + rv + ", " + o.rowRange()[0] + ", " + row);
            String src0 = address(o.access().array(), o.row(), o.index(), Map.of(o.rowVar(), rv, o.colVar(), cv0),
                    skip0);
            String src1 = address(o.access().array(), o.row(), o.index(), Map.of(o.rowVar(), rv, o.colVar(), cv1),
                    skip1);
            // the pair in one copy: both in the ranges (c + 1 in implies c in), adjacent and aligned
            String gap = rd();
            op("sub.s64 " + gap + ", " + src1 + ", " + src0);
            op("xor.b64 " + gap + ", " + gap + ", 8");
            String low = rd();
            op("and.b64 " + low + ", " + src0 + ", 15");
            op("or.b64 " + low + ", " + low + ", " + gap);
            String pair = p();
            op("setp.eq.and.u64 " + pair + ", " + low + ", 0, !" + skip1);
            String at = sharedAt(o, n, stage, ats);
            op("@" + pair + " cp.async.cg.shared.global [" + at + "], [" + src0 + "], 16");
            // one by one: the array's base stands in for an address outside the ranges (source size 0)
            String s0 = rd();
            String s1 = rd();
            op("selp.b64 " + s0 + ", " + data + ", " + src0 + ", " + skip0);
            op("selp.b64 " + s1 + ", " + data + ", " + src1 + ", " + skip1);
            String n0 = r();
            String n1 = r();
            op("selp.u32 " + n0 + ", 0, 8, " + skip0);
            op("selp.u32 " + n1 + ", 0, 8, " + skip1);
            op("@!" + pair + " cp.async.ca.shared.global [" + at + "], [" + s0 + "], 8, " + n0);
            String at1 = ats.get(dst[n]) + "+" + (8 + o.dstOff()[n]);
            op("@!" + pair + " cp.async.ca.shared.global [" + at1 + "], [" + s1 + "], 8, " + n1);
        }
    }

    /**
     * The offsets in a warp's part of the C tile of accumulator {@code n} ({@code [mt][nt][e]}, {@code nT} tiles
     * along j), beyond the lane's own.
     */
    static int[] tensorOffsets(int n, int nT) {
        int mt = n / (4 * nT);
        int nt = n / 4 % nT;
        int e = n % 4;
        return new int[] {mt * 16 + (e / 2) * 8, nt * 8 + (e % 2)};
    }

    private String[] tensorElement(Tiling.Matmul t, int n, int nT, String iBase, String jBase, MatmulRegs nest) {
        int[] o = tensorOffsets(n, nT);
        String io = r();
        String jo = r();
        op("add.u32 " + io + ", " + iBase + ", " + o[0]);
        op("add.u32 " + jo + ", " + jBase + ", " + o[1]);
        return cAt(t, io, jo, nest);
    }
}
