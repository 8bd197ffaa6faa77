package org.acc4j.compiler.ptx;

import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Tiling;

/**
 * The register-tiled matmul kernel of {@link Tiling}, which keeps Java's order over k (each product rounded, then
 * each sum); written with {@link TiledEmitter}'s registers, parameters and subscript forms. The FP64 tensor-core
 * kernel is {@link TensorTiles}.
 */
final class MatmulTiles extends TiledEmitter {
    MatmulTiles(MethodBody body, List<KernelParam> params) {
        super(body, params);
    }

    /**
     * The matmul kernel for the tile {@code T} of {@code t} ({@link Tiling.MatmulTile}): block {@code (bx, by)}
     * takes the {@code blockI × blockJ} tiles of C from {@code (bx, by)} by the grid; thread {@code (tx, ty)}
     * accumulates in registers the elements at i offsets {@code 2 ty + 2 threadsY h + e} and j offsets
     * {@code 2 tx + 2 threadsX h + e} ({@code e} 0 or 1: pairs of adjacent elements, read from shared memory with
     * one {@code ld.shared.v2.f64}). The k range is taken {@code depth} at a time: each thread loads its elements
     * of A's {@code blockI × depth} tile and of B's {@code depth × blockJ} tile from global memory into registers
     * while the block computes on the previous k tile, then stores them into the other of two shared buffers (A
     * transposed, rows padded by two elements), and one barrier per k tile separates the phases. Every element
     * gets {@code acc + a * b} for each k in Java's order ({@code mul.rn} then {@code add.rn}, never contracted),
     * and the last k tile stops at the range's end; outside the i and j ranges the staged values are 0 and
     * nothing is stored.
     */
    String matmulBody(Tiling.Matmul t) {
        Tiling.MatmulTile tile = t.tile();
        int bi = tile.blockI();
        int bj = tile.blockJ();
        int bk = tile.depth();
        int tX = tile.threadsX();
        int tY = tile.threadsY();
        int mi = tile.microI();
        int mj = tile.microJ();
        int threads = tile.threads();
        int aPitch = tile.pitchA();
        int aBuf = bk * aPitch * 8;
        int bBuf = bk * bj * 8;
        code.append("\t.shared .align 16 .b8 sa[").append(2 * aBuf).append("];\n");
        code.append("\t.shared .align 16 .b8 sb[").append(2 * bBuf).append("];\n");
        MatmulRegs nest = matmulRegs(t, bi, bj, bk);
        String tx = r();
        String ty = r();
        String tid = r();
        op("mov.u32 " + tx + ", %tid.x");
        op("mov.u32 " + ty + ", %tid.y");
        op("mad.lo.u32 " + tid + ", " + ty + ", " + tX + ", " + tx);
        // staging coordinates: A's element q at (m = tid / depth + (threads / depth) q, k = tid % depth),
        // B's at (k = tid / blockJ + (threads / blockJ) q, n = tid % blockJ)
        String am = r();
        String ak = r();
        String bkk = r();
        String bn = r();
        op("shr.u32 " + am + ", " + tid + ", " + log2(bk));
        op("and.b32 " + ak + ", " + tid + ", " + (bk - 1));
        op("shr.u32 " + bkk + ", " + tid + ", " + log2(bj));
        op("and.b32 " + bn + ", " + tid + ", " + (bj - 1));
        int perA = bi * bk / threads;
        int perB = bk * bj / threads;
        int strideA = threads / bk;
        int strideB = threads / bj;
        String sa = rd();
        String sb = rd();
        op("mov.u64 " + sa + ", sa");
        op("mov.u64 " + sb + ", sb");
        // this thread's shared store addresses (buffer 0) and compute read bases (buffer 0)
        String aSt = rd();
        String bSt = rd();
        String tmp = r();
        String tmp64 = rd();
        op("mad.lo.u32 " + tmp + ", " + ak + ", " + aPitch + ", " + am);
        op("mul.wide.u32 " + tmp64 + ", " + tmp + ", 8");
        op("add.s64 " + aSt + ", " + sa + ", " + tmp64);
        String tmp2 = r();
        String tmp64b = rd();
        op("mad.lo.u32 " + tmp2 + ", " + bkk + ", " + bj + ", " + bn);
        op("mul.wide.u32 " + tmp64b + ", " + tmp2 + ", 8");
        op("add.s64 " + bSt + ", " + sb + ", " + tmp64b);
        String aRd = rd();
        String bRd = rd();
        String t64a = rd();
        String t64b = rd();
        op("mul.wide.u32 " + t64a + ", " + ty + ", 16");
        op("add.s64 " + aRd + ", " + sa + ", " + t64a);
        op("mul.wide.u32 " + t64b + ", " + tx + ", 16");
        op("add.s64 " + bRd + ", " + sb + ", " + t64b);
        String nctaX = r();
        String nctaY = r();
        op("mov.u32 " + nctaX + ", %nctaid.x");
        op("mov.u32 " + nctaY + ", %nctaid.y");
        String tiReg = r();
        String tjReg = r();
        String stop = p();
        String[] acc = new String[mi * mj];
        for (int q = 0; q < acc.length; q++) {
            acc[q] = fd();
        }
        String[] av = new String[mi];
        String[] bv = new String[mj];
        for (int q = 0; q < mi; q++) {
            av[q] = fd();
        }
        for (int q = 0; q < mj; q++) {
            bv[q] = fd();
        }
        String[] pa = new String[perA];
        String[] pb = new String[perB];
        for (int q = 0; q < perA; q++) {
            pa[q] = fd();
        }
        for (int q = 0; q < perB; q++) {
            pb[q] = fd();
        }
        String init = fd();
        op("mov.f64 " + init + ", 0d" + String.format("%016X", t.accumulate() ? 0L : t.init().bits()));
        op("mov.u32 " + tiReg + ", %ctaid.y");
        label("$L_ti");
        op("setp.ge.u32 " + stop + ", " + tiReg + ", " + nest.tilesI());
        op("@" + stop + " bra $L_exit");
        op("mov.u32 " + tjReg + ", %ctaid.x");
        label("$L_tj");
        op("setp.ge.u32 " + stop + ", " + tjReg + ", " + nest.tilesJ());
        op("@" + stop + " bra $L_next_ti");
        String i0 = r();
        String j0 = r();
        op("shl.b32 " + i0 + ", " + tiReg + ", " + log2(bi));
        op("shl.b32 " + j0 + ", " + tjReg + ", " + log2(bj));
        for (String a : acc) {
            op("mov.f64 " + a + ", " + init);
        }
        if (t.accumulate()) {
            // each element starts at its own value in c
            for (int qi = 0; qi < mi; qi++) {
                for (int qj = 0; qj < mj; qj++) {
                    String[] at = cElement(t, qi, qj, i0, j0, tx, ty, nest);
                    op("@!" + at[1] + " ld.global.f64 " + acc[qi * mj + qj] + ", [" + at[0] + "]");
                }
            }
        }
        String kt = r();
        op("mov.u32 " + kt + ", 0");
        op("setp.eq.u32 " + stop + ", " + nest.tilesK() + ", 0");
        op("@" + stop + " bra $L_store");
        // k tile 0 into buffer 0
        stage(t, kt, i0, j0, am, ak, bkk, bn, pa, pb, null, nest);
        storeShared(aSt, pa, strideA * 8, null);
        storeShared(bSt, pb, strideB * bj * 8, null);
        op("bar.sync 0");
        label("$L_kt");
        String next = r();
        op("add.u32 " + next + ", " + kt + ", 1");
        String hasNext = p();
        op("setp.lt.u32 " + hasNext + ", " + next + ", " + nest.tilesK());
        stage(t, next, i0, j0, am, ak, bkk, bn, pa, pb, hasNext, nest);
        // compute on buffer kt & 1: kCount = min(depth, nK - depth kt) steps
        String buf = r();
        op("and.b32 " + buf + ", " + kt + ", 1");
        String aCur = rd();
        String bCur = rd();
        String off = r();
        String off64 = rd();
        op("mul.lo.u32 " + off + ", " + buf + ", " + aBuf);
        op("cvt.u64.u32 " + off64 + ", " + off);
        op("add.s64 " + aCur + ", " + aRd + ", " + off64);
        String offb = r();
        String offb64 = rd();
        op("mul.lo.u32 " + offb + ", " + buf + ", " + bBuf);
        op("cvt.u64.u32 " + offb64 + ", " + offb);
        op("add.s64 " + bCur + ", " + bRd + ", " + offb64);
        String k0 = r();
        String kCount = r();
        op("shl.b32 " + k0 + ", " + kt + ", " + log2(bk));
        op("sub.u32 " + kCount + ", " + nest.rk()[1] + ", " + k0);
        op("min.u32 " + kCount + ", " + kCount + ", " + bk);
        String partial = p();
        op("setp.lt.u32 " + partial + ", " + kCount + ", " + bk);
        String kEnd = p();
        // a whole k tile without tests (ptxas may then schedule across the steps), the last one step by step
        op("@" + partial + " bra.uni $L_kpartial");
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                op("bra.uni $L_kdone");
                label("$L_kpartial");
            }
            for (int kk = 0; kk < bk; kk++) {
                if (pass == 1 && kk > 0) {
                    op("setp.le.u32 " + kEnd + ", " + kCount + ", " + kk);
                    op("@" + kEnd + " bra.uni $L_kdone");
                }
                for (int h = 0; h < mi / 2; h++) {
                    op("ld.shared.v2.f64 {" + av[2 * h] + ", " + av[2 * h + 1] + "}, [" + aCur + "+"
                            + ((kk * aPitch + 2 * tY * h) * 8) + "]");
                }
                for (int h = 0; h < mj / 2; h++) {
                    op("ld.shared.v2.f64 {" + bv[2 * h] + ", " + bv[2 * h + 1] + "}, [" + bCur + "+"
                            + ((kk * bj + 2 * tX * h) * 8) + "]");
                }
                for (int qi = 0; qi < mi; qi++) {
                    for (int qj = 0; qj < mj; qj++) {
                        String prod = fd();
                        op("mul.rn.f64 " + prod + ", " + av[qi] + ", " + bv[qj]);
                        op("add.rn.f64 " + acc[qi * mj + qj] + ", " + acc[qi * mj + qj] + ", " + prod);
                    }
                }
            }
        }
        label("$L_kdone");
        // the next k tile into the other buffer
        String nb = r();
        op("xor.b32 " + nb + ", " + buf + ", 1");
        String aNx = rd();
        String bNx = rd();
        String offn = r();
        String offn64 = rd();
        op("mul.lo.u32 " + offn + ", " + nb + ", " + aBuf);
        op("cvt.u64.u32 " + offn64 + ", " + offn);
        op("add.s64 " + aNx + ", " + aSt + ", " + offn64);
        String offm = r();
        String offm64 = rd();
        op("mul.lo.u32 " + offm + ", " + nb + ", " + bBuf);
        op("cvt.u64.u32 " + offm64 + ", " + offm);
        op("add.s64 " + bNx + ", " + bSt + ", " + offm64);
        storeShared(aNx, pa, strideA * 8, hasNext);
        storeShared(bNx, pb, strideB * bj * 8, hasNext);
        op("bar.sync 0");
        op("mov.u32 " + kt + ", " + next);
        op("@" + hasNext + " bra.uni $L_kt");
        label("$L_store");
        for (int qi = 0; qi < mi; qi++) {
            for (int qj = 0; qj < mj; qj++) {
                String[] at = cElement(t, qi, qj, i0, j0, tx, ty, nest);
                op("@!" + at[1] + " st.global.f64 [" + at[0] + "], " + acc[qi * mj + qj]);
            }
        }
        op("add.u32 " + tjReg + ", " + tjReg + ", " + nctaX);
        op("bra.uni $L_tj");
        label("$L_next_ti");
        op("add.u32 " + tiReg + ", " + tiReg + ", " + nctaY);
        op("bra.uni $L_ti");
        label("$L_exit");
        op("ret");
        return code.toString();
    }

    /** The offset in a tile of the thread's {@code q}th element along an axis of {@code n} threads: pairs. */
    private static int pairOffset(int q, int n) {
        return 2 * n * (q / 2) + (q % 2);
    }

    /**
     * The address of this thread's element {@code (qi, qj)} of the C tile at {@code (i0, j0)} (offsets
     * {@code 2 ty + pairOffset(qi)}, {@code 2 tx + pairOffset(qj)}), and the predicate that is true where it lies
     * outside the ranges.
     */
    private String[] cElement(Tiling.Matmul t, int qi, int qj, String i0, String j0, String tx, String ty,
                              MatmulRegs nest) {
        String io = r();
        op("mad.lo.u32 " + io + ", " + ty + ", 2, " + i0);
        int oi = pairOffset(qi, t.tile().threadsY());
        if (oi > 0) {
            op("add.u32 " + io + ", " + io + ", " + oi);
        }
        String jo = r();
        op("mad.lo.u32 " + jo + ", " + tx + ", 2, " + j0);
        int oj = pairOffset(qj, t.tile().threadsX());
        if (oj > 0) {
            op("add.u32 " + jo + ", " + jo + ", " + oj);
        }
        return cAt(t, io, jo, nest);
    }

    /**
     * Loads this thread's elements of A's and B's k tile {@code ktile} into {@code pa}, {@code pb} (0 outside
     * the ranges, and nothing loaded where {@code guard}, when given, is false): A's at rows {@code i0 + am} and
     * column {@code k0 + ak}, B's at rows {@code k0 + bkk} and column {@code j0 + bn}, each operand by the same two
     * steps, {@link #column} and {@link #rows} (both columns first: fewer registers live across the loads).
     */
    private void stage(Tiling.Matmul t, String ktile, String i0, String j0, String am, String ak, String bkk,
                       String bn, String[] pa, String[] pb, String guard, MatmulRegs nest) {
        int threads = t.tile().threads();
        String k0 = r();
        op("shl.b32 " + k0 + ", " + ktile + ", " + log2(t.tile().depth()));
        String[] colA = column(k0, ak, nest.rk(), guard);
        String[] colB = column(j0, bn, nest.rj(), guard);
        rows(t.a(), nest.aRow(), nest.aIdx(), nest.vk(), colA, nest.vi(), i0, am, nest.ri(), threads / t.tile().depth(),
                pa);
        rows(t.b(), nest.bRow(), nest.bIdx(), nest.vj(), colB, nest.vk(), k0, bkk, nest.rk(),
                threads / t.tile().blockJ(), pb);
    }

    /**
     * The column {@code start + offset} of this thread's elements of an operand's tile (an offset from the range's
     * start): {@code {inside, value}}, the predicate that it lies in the range (and {@code guard}, when given,
     * holds) and the column variable's value there.
     */
    private String[] column(String start, String offset, String[] range, String guard) {
        String c = r();
        op("add.u32 " + c + ", " + start + ", " + offset);
        String in = p();
        op("setp.lt.u32 " + in + ", " + c + ", " + range[1]);
        if (guard != null) {
            op("and.pred " + in + ", " + in + ", " + guard);
        }
        String v = r();
        op("add.s32 " + v + ", " + range[0] + ", " + c);
        return new String[] {in, v};
    }

    /**
     * Loads this thread's elements of an operand's tile into {@code into}: element {@code q} in the column
     * {@code col} ({@link #column}) at row {@code rowStart + row + q rowStride} (an offset from the range's start,
     * the row variable {@code rowVar}); 0 where it lies outside the ranges.
     */
    private void rows(Tiling.Access x, FormRegs rowForm, FormRegs indexForm, Var colVar, String[] col, Var rowVar,
                      String rowStart, String row, String[] rowRange, int rowStride, String[] into) {
        for (int q = 0; q < into.length; q++) {
            String rr = r();
            op("add.u32 " + rr + ", " + rowStart + ", " + row);
            if (q > 0) {
                op("add.u32 " + rr + ", " + rr + ", " + (q * rowStride));
            }
            String skip = p();
            op("setp.ge.or.u32 " + skip + ", " + rr + ", " + rowRange[1] + ", !" + col[0]);
            String rv = r();
            op("add.s32 " + rv + ", " + rowRange[0] + ", " + rr);
            String addr = address(x.array(), rowForm, indexForm, Map.of(rowVar, rv, colVar, col[1]), skip);
            op("mov.f64 " + into[q] + ", 0d0000000000000000");
            op("@!" + skip + " ld.global.f64 " + into[q] + ", [" + addr + "]");
        }
    }

    /** Stores {@code values} at {@code at}, {@code strideBytes} apart, where {@code guard} (when given) holds. */
    private void storeShared(String at, String[] values, int strideBytes, String guard) {
        for (int q = 0; q < values.length; q++) {
            op((guard == null ? "" : "@" + guard + " ") + "st.shared.f64 [" + at + "+" + (q * strideBytes) + "], "
                    + values[q]);
        }
    }
}
