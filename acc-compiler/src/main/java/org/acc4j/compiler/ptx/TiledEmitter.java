package org.acc4j.compiler.ptx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Linear;
import org.acc4j.compiler.pass.Tiling;

/**
 * PTX for the kernels of {@link Tiling}: hand-shaped code over the tiles of a nest, with the same parameters as
 * the region's plain kernel (so that the runtime binds either the same way), and no bounds checks (the runtime
 * launches it only when the host has proven every access in bounds).
 *
 * <p>The transpose kernel: block {@code (bx, by)} takes the tiles {@code (tr, tw)} with {@code tr} from
 * {@code bx} by {@code gridDim.x} over the tiles of the read loop and {@code tw} from {@code by} by
 * {@code gridDim.y} over the tiles of the write loop. For each tile, thread {@code (tx, ty)} first reads the
 * elements at read-loop offset {@code tx} and write-loop offsets {@code ty + 8k} (consecutive threads, consecutive
 * addresses) into {@code tile[ty + 8k][tx]}; after a barrier it writes the elements at write-loop offset
 * {@code tx} and read-loop offsets {@code ty + 8k} from {@code tile[tx][ty + 8k]}; a second barrier ends the
 * tile. Subscripts are computed from their linear forms in 32-bit arithmetic, which wraps as Java's does; the
 * proof that Java's value is in bounds makes them equal.
 */
public final class TiledEmitter {
    private final StringBuilder code = new StringBuilder();
    private int r32;
    private int r64;
    private int pred;
    private int f64;
    private final MethodBody body;
    private final List<KernelParam> params;
    private final Map<Object, String> scalarCache = new HashMap<>();

    private TiledEmitter(MethodBody body, List<KernelParam> params) {
        this.body = body;
        this.params = params;
    }

    /** The tiled kernel {@code entry} for {@code t}, with the plain kernel's {@code params}. */
    public static String emit(MethodBody body, Tiling.Kernel t, String entry, List<KernelParam> params, int sm) {
        TiledEmitter e = new TiledEmitter(body, params);
        String text;
        int[] block;
        String occupancy = "";
        if (t instanceof Tiling.Transpose tr) {
            text = e.transposeBody(tr);
            block = new int[] {Tiling.TILE, Tiling.ROWS};
        } else {
            Tiling.Matmul mm = (Tiling.Matmul) t;
            if (mm.tensorCores()) {
                text = e.tensorBody(mm);
                block = new int[] {mm.tile().tensorThreads(), 1};
                occupancy = ".minnctapersm " + (mm.tile().tensorThreads() > 128 ? 1 : 2) + "\n";
            } else {
                text = e.matmulBody(mm);
                block = new int[] {mm.tile().threadsX(), mm.tile().threadsY()};
                // the blocks per SM the tile is sized for: ptxas keeps the registers a thread uses within them
                occupancy = ".minnctapersm " + mm.tile().minBlocks() + "\n";
            }
        }
        return "//\n// acc4j tiled kernel for " + body.owner().replace('/', '.') + "." + body.name() + ": " + t.note()
                + "\n//\n.version " + KernelEmitter.ptxVersion(sm) + "\n.target sm_" + sm + "\n.address_size 64\n\n"
                + ".visible .entry " + entry + "(\n" + e.decl() + "\n)\n.maxntid " + block[0] + ", " + block[1]
                + ", 1\n" + occupancy + "{\n" + e.regs() + text + "}\n";
    }

    private String decl() {
        StringBuilder d = new StringBuilder();
        for (int k = 0; k < params.size(); k++) {
            KernelParam p = params.get(k);
            String type;
            if (p instanceof KernelParam.ArrayLength) {
                type = "u32";
            } else if (p instanceof KernelParam.RowBlock b) {
                type = b.part() == KernelParam.RowBlock.Part.START ? "u64" : "s32";
            } else if (p instanceof KernelParam.Scalar s) {
                type = paramType(s.type());
            } else if (p instanceof KernelParam.HostValue h) {
                type = paramType(h.var().type());
            } else {
                type = "u64";
            }
            d.append(k > 0 ? ",\n" : "").append("\t.param .").append(type).append(" p").append(k);
        }
        return d.toString();
    }

    private static String paramType(Type t) {
        return switch (t) {
            case I32 -> "s32";
            case I64 -> "s64";
            case F32 -> "f32";
            case F64 -> "f64";
            case PRED -> "u32";
        };
    }

    private String regs() {
        return "\t.reg .b32 %r<" + (r32 + 1) + ">;\n\t.reg .b64 %rd<" + (r64 + 1) + ">;\n\t.reg .f64 %fd<" + (f64 + 1)
                + ">;\n\t.reg .pred %p<" + (pred + 1) + ">;\n";
    }

    private String fd() {
        return "%fd" + (++f64);
    }

    private String r() {
        return "%r" + (++r32);
    }

    private String rd() {
        return "%rd" + (++r64);
    }

    private String p() {
        return "%p" + (++pred);
    }

    private void op(String text) {
        code.append('\t').append(text).append(";\n");
    }

    private void label(String l) {
        code.append(l).append(":\n");
    }

    // ---------------------------------------------------------------- invariant scalars

    private int indexOf(KernelParam p) {
        int k = params.indexOf(p);
        if (k < 0) {
            throw new IllegalStateException("no parameter " + p + " in the plain kernel");
        }
        return k;
    }

    /** The global address of {@code a}'s data (its row table for two dimensions). */
    private String base(ArrayRef a) {
        return scalarCache.computeIfAbsent("base:" + a.name(), k -> {
            int at = -1;
            for (int q = 0; q < params.size(); q++) {
                if (params.get(q) instanceof KernelParam.ArrayData d && d.array().equals(a)) {
                    at = q;
                }
            }
            if (at < 0) {
                throw new IllegalStateException("no parameter for the array " + a.name());
            }
            String reg = rd();
            op("ld.param.u64 " + reg + ", [p" + at + "]");
            op("cvta.to.global.u64 " + reg + ", " + reg);
            return reg;
        });
    }

    /** An invariant {@code int} expression (see {@code Tiling.Scalars}) in a register. */
    private String scalar(Expr e) {
        if (e instanceof Expr.Const k) {
            String reg = r();
            op("mov.b32 " + reg + ", " + (int) k.bits());
            return reg;
        }
        if (e instanceof Expr.Local l) {
            return scalarCache.computeIfAbsent(l.var(), k -> {
                int at = Tiling.param(body, params, l.var());
                String reg = r();
                op("ld.param.s32 " + reg + ", [p" + at + "]");
                return reg;
            });
        }
        if (e instanceof Expr.Length l) {
            return scalarCache.computeIfAbsent("len:" + l.array().name(), k -> {
                String reg = r();
                op("ld.param.u32 " + reg + ", [p" + indexOf(new KernelParam.ArrayLength(l.array())) + "]");
                return reg;
            });
        }
        if (e instanceof Expr.Binary b) {
            String x = scalar(b.left());
            String y = scalar(b.right());
            String reg = r();
            String o = switch (b.op()) {
                case ADD -> "add.s32";
                case SUB -> "sub.s32";
                case MUL -> "mul.lo.s32";
                case SHL -> "shl.b32";
                default -> throw new IllegalStateException("operator " + b.op());
            };
            if (b.op() == BinOp.SHL) {
                String c = r();
                op("and.b32 " + c + ", " + y + ", 31");
                y = c;
            }
            op(o + " " + reg + ", " + x + ", " + y);
            return reg;
        }
        if (e instanceof Expr.Unary u && u.op() == UnOp.NEG) {
            String x = scalar(u.operand());
            String reg = r();
            op("neg.s32 " + reg + ", " + x);
            return reg;
        }
        throw new IllegalStateException("not an invariant int expression: " + e);
    }

    /** A loop's lower bound and trip count ({@code max(0, bound - lower (+1 for <=))}, in 64 bits, then 32). */
    private String[] range(Stmt.For f) {
        String lo = scalar(f.lower());
        String hi = scalar(f.bound());
        String lo64 = rd();
        String hi64 = rd();
        op("cvt.s64.s32 " + lo64 + ", " + lo);
        op("cvt.s64.s32 " + hi64 + ", " + hi);
        String n64 = rd();
        op("sub.s64 " + n64 + ", " + hi64 + ", " + lo64);
        if (f.cond() == Cond.LE) {
            op("add.s64 " + n64 + ", " + n64 + ", 1");
        }
        op("max.s64 " + n64 + ", " + n64 + ", 0");
        String n = r();
        op("cvt.u32.u64 " + n + ", " + n64);
        return new String[] {lo, n};
    }

    /** The coefficients and rest of a linear form in registers: {@code {c_read, c_write, rest}}. */
    private String[] form(Linear.Form f, Var read, Var write) {
        Expr cr = f.coefficient(read);
        Expr cw = f.coefficient(write);
        return new String[] {cr == null ? null : scalar(cr), cw == null ? null : scalar(cw), scalar(f.rest())};
    }

    /** {@code Σ c * v + rest} for the read- and write-loop index values {@code vr}, {@code vw}. */
    private String subscript(String[] form, String vr, String vw) {
        String acc = form[2];
        if (form[0] != null) {
            String s = r();
            op("mad.lo.s32 " + s + ", " + form[0] + ", " + vr + ", " + acc);
            acc = s;
        }
        if (form[1] != null) {
            String s = r();
            op("mad.lo.s32 " + s + ", " + form[1] + ", " + vw + ", " + acc);
            acc = s;
        }
        return acc;
    }

    /** The element's global address. */
    private String address(ArrayRef a, String[] row, String[] index, String vr, String vw, String skip) {
        String data = base(a);
        if (row != null) {
            String ri = subscript(row, vr, vw);
            String off = rd();
            op("mul.wide.s32 " + off + ", " + ri + ", " + ArrayRef.ROW_ENTRY_BYTES);
            String entry = rd();
            op("add.s64 " + entry + ", " + data + ", " + off);
            String rowData = rd();
            // outside the nest's range the row may not exist: no load there (the address is not used)
            op("mov.u64 " + rowData + ", 0");
            op("@!" + skip + " ld.global.u64 " + rowData + ", [" + entry + "]");
            data = rowData;
        }
        String ci = subscript(index, vr, vw);
        String off = rd();
        op("mul.wide.s32 " + off + ", " + ci + ", " + a.elem().bytes());
        String addr = rd();
        op("add.s64 " + addr + ", " + data + ", " + off);
        return addr;
    }

    // ---------------------------------------------------------------- transpose

    private String transposeBody(Tiling.Transpose t) {
        int es = t.src().array().elem().bytes();
        String w = es == 8 ? "b64" : es == 4 ? "b32" : es == 2 ? "u16" : "u8";
        code.append("\t.shared .align 8 .b8 tile[").append(Tiling.TILE * Tiling.PADDED * es).append("];\n");
        Var read = t.readLoop().index();
        Var write = t.writeLoop().index();
        String[] rr = range(t.readLoop());
        String[] wr = range(t.writeLoop());
        String[] srcRow = t.src().row() == null ? null : form(t.src().row(), read, write);
        String[] srcIdx = form(t.src().index(), read, write);
        String[] dstRow = t.dst().row() == null ? null : form(t.dst().row(), read, write);
        String[] dstIdx = form(t.dst().index(), read, write);
        base(t.src().array());
        base(t.dst().array());
        String tilesR = r();
        String tilesW = r();
        op("add.u32 " + tilesR + ", " + rr[1] + ", " + (Tiling.TILE - 1));
        op("shr.u32 " + tilesR + ", " + tilesR + ", 5");
        op("add.u32 " + tilesW + ", " + wr[1] + ", " + (Tiling.TILE - 1));
        op("shr.u32 " + tilesW + ", " + tilesW + ", 5");
        String tx = r();
        String ty = r();
        op("mov.u32 " + tx + ", %tid.x");
        op("mov.u32 " + ty + ", %tid.y");
        String shared = rd();
        op("mov.u64 " + shared + ", tile");
        // this thread's slots: phase 1 writes tile[ty + 8k][tx], phase 2 reads tile[tx][ty + 8k]
        String slot1 = r();
        op("mad.lo.u32 " + slot1 + ", " + ty + ", " + Tiling.PADDED + ", " + tx);
        String slot2 = r();
        op("mad.lo.u32 " + slot2 + ", " + tx + ", " + Tiling.PADDED + ", " + ty);
        String s1 = rd();
        String s2 = rd();
        op("mul.wide.u32 " + s1 + ", " + slot1 + ", " + es);
        op("add.s64 " + s1 + ", " + shared + ", " + s1);
        op("mul.wide.u32 " + s2 + ", " + slot2 + ", " + es);
        op("add.s64 " + s2 + ", " + shared + ", " + s2);
        String tw = r();
        String tr = r();
        String done = p();
        String nctaX = r();
        String nctaY = r();
        op("mov.u32 " + nctaX + ", %nctaid.x");
        op("mov.u32 " + nctaY + ", %nctaid.y");
        op("mov.u32 " + tw + ", %ctaid.y");
        label("$L_tw");
        op("setp.ge.u32 " + done + ", " + tw + ", " + tilesW);
        op("@" + done + " bra $L_exit");
        op("mov.u32 " + tr + ", %ctaid.x");
        label("$L_tr");
        op("setp.ge.u32 " + done + ", " + tr + ", " + tilesR);
        op("@" + done + " bra $L_next_tw");
        String r0 = r();
        String w0 = r();
        op("shl.b32 " + r0 + ", " + tr + ", 5");
        op("shl.b32 " + w0 + ", " + tw + ", 5");
        // phase 1: read along the read loop
        String ro = r();
        op("add.u32 " + ro + ", " + r0 + ", " + tx);
        String inR = p();
        op("setp.lt.u32 " + inR + ", " + ro + ", " + rr[1]);
        String vr = r();
        op("add.s32 " + vr + ", " + rr[0] + ", " + ro);
        int per = Tiling.TILE / Tiling.ROWS;
        String[] skips = new String[per];
        String[] vals = new String[per];
        String[] addrs = new String[per];
        for (int k = 0; k < per; k++) {
            String wo = r();
            op("add.u32 " + wo + ", " + w0 + ", " + ty);
            if (k > 0) {
                op("add.u32 " + wo + ", " + wo + ", " + (k * Tiling.ROWS));
            }
            skips[k] = p();
            op("setp.ge.or.u32 " + skips[k] + ", " + wo + ", " + wr[1] + ", !" + inR);
            String vw = r();
            op("add.s32 " + vw + ", " + wr[0] + ", " + wo);
            addrs[k] = address(t.src().array(), srcRow, srcIdx, vr, vw, skips[k]);
        }
        // the loads first, so that they are in flight together
        for (int k = 0; k < per; k++) {
            vals[k] = es == 8 ? rd() : r();
            op("@!" + skips[k] + " ld.global." + w + " " + vals[k] + ", [" + addrs[k] + "]");
        }
        for (int k = 0; k < per; k++) {
            op("@!" + skips[k] + " st.shared." + w + " [" + s1 + "+" + (k * Tiling.ROWS * Tiling.PADDED * es) + "], "
                    + vals[k]);
        }
        op("bar.sync 0");
        // phase 2: write along the write loop
        String wo2 = r();
        op("add.u32 " + wo2 + ", " + w0 + ", " + tx);
        String inW = p();
        op("setp.lt.u32 " + inW + ", " + wo2 + ", " + wr[1]);
        String vw2 = r();
        op("add.s32 " + vw2 + ", " + wr[0] + ", " + wo2);
        for (int k = 0; k < per; k++) {
            String ro2 = r();
            op("add.u32 " + ro2 + ", " + r0 + ", " + ty);
            if (k > 0) {
                op("add.u32 " + ro2 + ", " + ro2 + ", " + (k * Tiling.ROWS));
            }
            skips[k] = p();
            op("setp.ge.or.u32 " + skips[k] + ", " + ro2 + ", " + rr[1] + ", !" + inW);
            String vr2 = r();
            op("add.s32 " + vr2 + ", " + rr[0] + ", " + ro2);
            addrs[k] = address(t.dst().array(), dstRow, dstIdx, vr2, vw2, skips[k]);
            vals[k] = es == 8 ? rd() : r();
            op("@!" + skips[k] + " ld.shared." + w + " " + vals[k] + ", [" + s2 + "+" + (k * Tiling.ROWS * es) + "]");
        }
        for (int k = 0; k < per; k++) {
            op("@!" + skips[k] + " st.global." + w + " [" + addrs[k] + "], " + vals[k]);
        }
        op("bar.sync 0");
        op("add.u32 " + tr + ", " + tr + ", " + nctaX);
        op("bra.uni $L_tr");
        label("$L_next_tw");
        op("add.u32 " + tw + ", " + tw + ", " + nctaY);
        op("bra.uni $L_tw");
        label("$L_exit");
        op("ret");
        return code.toString();
    }

    // ---------------------------------------------------------------- matmul

    /** A linear form's coefficients (by loop index) and rest in registers. */
    private record FormRegs(Map<Var, String> coefficients, String rest) {
    }

    private FormRegs formRegs(Linear.Form f) {
        if (f == null) {
            return null;
        }
        Map<Var, String> c = new java.util.LinkedHashMap<>();
        for (Map.Entry<Var, Expr> t : f.coefficients().entrySet()) {
            c.put(t.getKey(), scalar(t.getValue()));
        }
        return new FormRegs(c, scalar(f.rest()));
    }

    private String subscript(FormRegs f, Map<Var, String> values) {
        String acc = f.rest();
        for (Map.Entry<Var, String> t : f.coefficients().entrySet()) {
            String s = r();
            op("mad.lo.s32 " + s + ", " + t.getValue() + ", " + values.get(t.getKey()) + ", " + acc);
            acc = s;
        }
        return acc;
    }

    /** The global address of an element of {@code a}; the row-table load only where {@code skip} is false. */
    private String address(ArrayRef a, FormRegs row, FormRegs index, Map<Var, String> values, String skip) {
        String data = base(a);
        if (row != null) {
            String ri = subscript(row, values);
            String off = rd();
            op("mul.wide.s32 " + off + ", " + ri + ", " + ArrayRef.ROW_ENTRY_BYTES);
            String entry = rd();
            op("add.s64 " + entry + ", " + data + ", " + off);
            String rowData = rd();
            op("mov.u64 " + rowData + ", 0");
            op((skip == null ? "" : "@!" + skip + " ") + "ld.global.u64 " + rowData + ", [" + entry + "]");
            data = rowData;
        }
        String ci = subscript(index, values);
        String off = rd();
        op("mul.wide.s32 " + off + ", " + ci + ", " + a.elem().bytes());
        String addr = rd();
        op("add.s64 " + addr + ", " + data + ", " + off);
        return addr;
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
    private String matmulBody(Tiling.Matmul t) {
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
        Var vi = t.i().index();
        Var vj = t.j().index();
        Var vk = t.k().index();
        String[] ri = range(t.i());
        String[] rj = range(t.j());
        String[] rk = range(t.k());
        FormRegs aRow = formRegs(t.a().row());
        FormRegs aIdx = formRegs(t.a().index());
        FormRegs bRow = formRegs(t.b().row());
        FormRegs bIdx = formRegs(t.b().index());
        FormRegs cRow = formRegs(t.c().row());
        FormRegs cIdx = formRegs(t.c().index());
        base(t.a().array());
        base(t.b().array());
        base(t.c().array());
        String tilesI = r();
        String tilesJ = r();
        String tilesK = r();
        op("add.u32 " + tilesI + ", " + ri[1] + ", " + (bi - 1));
        op("shr.u32 " + tilesI + ", " + tilesI + ", " + log2(bi));
        op("add.u32 " + tilesJ + ", " + rj[1] + ", " + (bj - 1));
        op("shr.u32 " + tilesJ + ", " + tilesJ + ", " + log2(bj));
        op("add.u32 " + tilesK + ", " + rk[1] + ", " + (bk - 1));
        op("shr.u32 " + tilesK + ", " + tilesK + ", " + log2(bk));
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
        op("setp.ge.u32 " + stop + ", " + tiReg + ", " + tilesI);
        op("@" + stop + " bra $L_exit");
        op("mov.u32 " + tjReg + ", %ctaid.x");
        label("$L_tj");
        op("setp.ge.u32 " + stop + ", " + tjReg + ", " + tilesJ);
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
                    String[] at = cElement(t, qi, qj, i0, j0, tx, ty, ri, rj, cRow, cIdx, vi, vj);
                    op("@!" + at[1] + " ld.global.f64 " + acc[qi * mj + qj] + ", [" + at[0] + "]");
                }
            }
        }
        String kt = r();
        op("mov.u32 " + kt + ", 0");
        op("setp.eq.u32 " + stop + ", " + tilesK + ", 0");
        op("@" + stop + " bra $L_store");
        // k tile 0 into buffer 0
        stage(t, kt, i0, j0, ri, rj, rk, am, ak, bkk, bn, aRow, aIdx, bRow, bIdx, pa, pb, null, vi, vj, vk);
        for (int q = 0; q < perA; q++) {
            op("st.shared.f64 [" + aSt + "+" + (q * strideA * 8) + "], " + pa[q]);
        }
        for (int q = 0; q < perB; q++) {
            op("st.shared.f64 [" + bSt + "+" + (q * strideB * bj * 8) + "], " + pb[q]);
        }
        op("bar.sync 0");
        label("$L_kt");
        String next = r();
        op("add.u32 " + next + ", " + kt + ", 1");
        String hasNext = p();
        op("setp.lt.u32 " + hasNext + ", " + next + ", " + tilesK);
        stage(t, next, i0, j0, ri, rj, rk, am, ak, bkk, bn, aRow, aIdx, bRow, bIdx, pa, pb, hasNext, vi, vj, vk);
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
        op("sub.u32 " + kCount + ", " + rk[1] + ", " + k0);
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
        for (int q = 0; q < perA; q++) {
            op("@" + hasNext + " st.shared.f64 [" + aNx + "+" + (q * strideA * 8) + "], " + pa[q]);
        }
        for (int q = 0; q < perB; q++) {
            op("@" + hasNext + " st.shared.f64 [" + bNx + "+" + (q * strideB * bj * 8) + "], " + pb[q]);
        }
        op("bar.sync 0");
        op("mov.u32 " + kt + ", " + next);
        op("@" + hasNext + " bra.uni $L_kt");
        label("$L_store");
        for (int qi = 0; qi < mi; qi++) {
            for (int qj = 0; qj < mj; qj++) {
                String[] at = cElement(t, qi, qj, i0, j0, tx, ty, ri, rj, cRow, cIdx, vi, vj);
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

    /**
     * The FP64 tensor-core matmul kernel for the tile of {@code t} ({@link Tiling.MatmulTile}): blocks of
     * {@code warpsI × warpsJ} warps take the {@code blockI × blockJ} tiles of C from {@code (bx, by)} by the grid;
     * each warp computes its {@code 16 mT × 8 nT} part as {@code mT × nT} tiles of
     * {@code mma.sync.aligned.m16n8k4.row.col.f64}, its accumulators in registers in the instruction's layout (lane
     * {@code l}: rows {@code l / 4} and {@code l / 4 + 8}, columns {@code 2 (l % 4)} and one more). The k range is
     * staged {@code tensorDepth} at a time in two shared buffers, A transposed (k by i) and B as it is (k by j),
     * rows padded by 4 elements so that a fragment's 32 loads fall on distinct banks; the next tile's global loads
     * are in flight during the current tile's steps of k. Outside the ranges the staged values are 0 (0 × 0 adds
     * nothing to an element that is stored), and nothing is stored.
     */
    private String tensorBody(Tiling.Matmul t) {
        Tiling.MatmulTile tile = t.tile();
        int bi = tile.blockI();
        int bj = tile.blockJ();
        int bk = tile.tensorDepth();
        int threads = tile.tensorThreads();
        int mT = tile.tensorTilesI();
        int nT = tile.tensorTilesJ();
        // rows padded by 4 elements: the 32 lanes of a fragment load (4 rows of k, 8 of i or j) hit distinct banks
        int pitchA = bi + 4;
        int pitchB = bj + 4;
        int bufA = bk * pitchA * 8;
        int bufB = bk * pitchB * 8;
        code.append("\t.shared .align 16 .b8 sa[").append(2 * bufA).append("];\n");
        code.append("\t.shared .align 16 .b8 sb[").append(2 * bufB).append("];\n");
        Var vi = t.i().index();
        Var vj = t.j().index();
        Var vk = t.k().index();
        String[] ri = range(t.i());
        String[] rj = range(t.j());
        String[] rk = range(t.k());
        FormRegs aRow = formRegs(t.a().row());
        FormRegs aIdx = formRegs(t.a().index());
        FormRegs bRow = formRegs(t.b().row());
        FormRegs bIdx = formRegs(t.b().index());
        FormRegs cRow = formRegs(t.c().row());
        FormRegs cIdx = formRegs(t.c().index());
        base(t.a().array());
        base(t.b().array());
        base(t.c().array());
        String tilesI = r();
        String tilesJ = r();
        String tilesK = r();
        op("add.u32 " + tilesI + ", " + ri[1] + ", " + (bi - 1));
        op("shr.u32 " + tilesI + ", " + tilesI + ", " + log2(bi));
        op("add.u32 " + tilesJ + ", " + rj[1] + ", " + (bj - 1));
        op("shr.u32 " + tilesJ + ", " + tilesJ + ", " + log2(bj));
        op("add.u32 " + tilesK + ", " + rk[1] + ", " + (bk - 1));
        op("shr.u32 " + tilesK + ", " + tilesK + ", " + log2(bk));
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
        op("shr.u32 " + wm + ", " + warp + ", " + log2(tile.tensorWarpsJ()));
        op("mul.lo.u32 " + wm + ", " + wm + ", " + (16 * mT));
        op("and.b32 " + wn + ", " + warp + ", " + (tile.tensorWarpsJ() - 1));
        op("mul.lo.u32 " + wn + ", " + wn + ", " + (8 * nT));
        // staging coordinates: A's element s at (m = tid / depth + (threads / depth) s, k = tid % depth),
        // B's at (k = tid / blockJ + (threads / blockJ) s, n = tid % blockJ)
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
        String aSt = rd();
        String bSt = rd();
        String aRd = rd();
        String bRd = rd();
        String x = r();
        String x64 = rd();
        op("mad.lo.u32 " + x + ", " + ak + ", " + pitchA + ", " + am);
        op("mul.wide.u32 " + x64 + ", " + x + ", 8");
        op("add.s64 " + aSt + ", " + sa + ", " + x64);
        String y = r();
        String y64 = rd();
        op("mad.lo.u32 " + y + ", " + bkk + ", " + pitchB + ", " + bn);
        op("mul.wide.u32 " + y64 + ", " + y + ", 8");
        op("add.s64 " + bSt + ", " + sb + ", " + y64);
        // fragment bases: A at (k = q, m = wm + g), B at (k = q, n = wn + g)
        String fa = r();
        String fa64 = rd();
        op("mad.lo.u32 " + fa + ", " + q + ", " + pitchA + ", " + wm);
        op("add.u32 " + fa + ", " + fa + ", " + g);
        op("mul.wide.u32 " + fa64 + ", " + fa + ", 8");
        op("add.s64 " + aRd + ", " + sa + ", " + fa64);
        String fb = r();
        String fb64 = rd();
        op("mad.lo.u32 " + fb + ", " + q + ", " + pitchB + ", " + wn);
        op("add.u32 " + fb + ", " + fb + ", " + g);
        op("mul.wide.u32 " + fb64 + ", " + fb + ", 8");
        op("add.s64 " + bRd + ", " + sb + ", " + fb64);
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
        String[] pa = new String[perA];
        String[] pb = new String[perB];
        for (int n = 0; n < perA; n++) {
            pa[n] = fd();
        }
        for (int n = 0; n < perB; n++) {
            pb[n] = fd();
        }
        String init = fd();
        op("mov.f64 " + init + ", 0d" + String.format("%016X", t.accumulate() ? 0L : t.init().bits()));
        op("mov.u32 " + tiReg + ", %ctaid.y");
        label("$L_ti");
        op("setp.ge.u32 " + stop + ", " + tiReg + ", " + tilesI);
        op("@" + stop + " bra $L_exit");
        op("mov.u32 " + tjReg + ", %ctaid.x");
        label("$L_tj");
        op("setp.ge.u32 " + stop + ", " + tjReg + ", " + tilesJ);
        op("@" + stop + " bra $L_next_ti");
        String i0 = r();
        String j0 = r();
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
                String[] at = tensorElement(t, n, nT, iBase, jBase, ri, rj, cRow, cIdx, vi, vj);
                op("@!" + at[1] + " ld.global.f64 " + acc[n] + ", [" + at[0] + "]");
            }
        }
        String kt = r();
        op("mov.u32 " + kt + ", 0");
        op("setp.eq.u32 " + stop + ", " + tilesK + ", 0");
        op("@" + stop + " bra $L_store");
        stage(t, kt, i0, j0, ri, rj, rk, am, ak, bkk, bn, aRow, aIdx, bRow, bIdx, pa, pb, null, vi, vj, vk);
        for (int n = 0; n < perA; n++) {
            op("st.shared.f64 [" + aSt + "+" + (n * strideA * 8) + "], " + pa[n]);
        }
        for (int n = 0; n < perB; n++) {
            op("st.shared.f64 [" + bSt + "+" + (n * strideB * pitchB * 8) + "], " + pb[n]);
        }
        op("bar.sync 0");
        label("$L_kt");
        String next = r();
        op("add.u32 " + next + ", " + kt + ", 1");
        String hasNext = p();
        op("setp.lt.u32 " + hasNext + ", " + next + ", " + tilesK);
        stage(t, next, i0, j0, ri, rj, rk, am, ak, bkk, bn, aRow, aIdx, bRow, bIdx, pa, pb, hasNext, vi, vj, vk);
        String cur = r();
        op("and.b32 " + cur + ", " + kt + ", 1");
        String aCur = rd();
        String bCur = rd();
        bufferAt(aCur, aRd, cur, bufA);
        bufferAt(bCur, bRd, cur, bufB);
        // depth / 4 steps of k, each mT x nT mma of 16x8x4
        for (int ks = 0; ks < bk / 4; ks++) {
            String[] a0 = new String[mT];
            String[] a1 = new String[mT];
            String[] b = new String[nT];
            for (int mt = 0; mt < mT; mt++) {
                a0[mt] = fd();
                a1[mt] = fd();
                op("ld.shared.f64 " + a0[mt] + ", [" + aCur + "+" + ((ks * 4 * pitchA + mt * 16) * 8) + "]");
                op("ld.shared.f64 " + a1[mt] + ", [" + aCur + "+" + ((ks * 4 * pitchA + mt * 16 + 8) * 8) + "]");
            }
            for (int nt = 0; nt < nT; nt++) {
                b[nt] = fd();
                op("ld.shared.f64 " + b[nt] + ", [" + bCur + "+" + ((ks * 4 * pitchB + nt * 8) * 8) + "]");
            }
            for (int mt = 0; mt < mT; mt++) {
                for (int nt = 0; nt < nT; nt++) {
                    int base = (mt * nT + nt) * 4;
                    String d = "{" + acc[base] + ", " + acc[base + 1] + ", " + acc[base + 2] + ", " + acc[base + 3] + "}";
                    op("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 " + d + ", {" + a0[mt] + ", " + a1[mt]
                            + "}, {" + b[nt] + "}, " + d);
                }
            }
        }
        String nb = r();
        op("xor.b32 " + nb + ", " + cur + ", 1");
        String aNx = rd();
        String bNx = rd();
        bufferAt(aNx, aSt, nb, bufA);
        bufferAt(bNx, bSt, nb, bufB);
        for (int n = 0; n < perA; n++) {
            op("@" + hasNext + " st.shared.f64 [" + aNx + "+" + (n * strideA * 8) + "], " + pa[n]);
        }
        for (int n = 0; n < perB; n++) {
            op("@" + hasNext + " st.shared.f64 [" + bNx + "+" + (n * strideB * pitchB * 8) + "], " + pb[n]);
        }
        op("bar.sync 0");
        op("mov.u32 " + kt + ", " + next);
        op("@" + hasNext + " bra.uni $L_kt");
        label("$L_store");
        for (int n = 0; n < acc.length; n++) {
            String[] at = tensorElement(t, n, nT, iBase, jBase, ri, rj, cRow, cIdx, vi, vj);
            op("@!" + at[1] + " st.global.f64 [" + at[0] + "], " + acc[n]);
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

    /**
     * The offsets in a warp's part of the C tile of accumulator {@code n} ({@code [mt][nt][e]}, {@code nT} tiles
     * along j), beyond the lane's own.
     */
    private static int[] tensorOffsets(int n, int nT) {
        int mt = n / (4 * nT);
        int nt = n / 4 % nT;
        int e = n % 4;
        return new int[] {mt * 16 + (e / 2) * 8, nt * 8 + (e % 2)};
    }

    /** {@code to = base + buffer * bytes}: the address in shared buffer {@code buffer} (0 or 1). */
    private void bufferAt(String to, String base, String buffer, int bytes) {
        String off = r();
        String off64 = rd();
        op("mul.lo.u32 " + off + ", " + buffer + ", " + bytes);
        op("cvt.u64.u32 " + off64 + ", " + off);
        op("add.s64 " + to + ", " + base + ", " + off64);
    }

    private String[] tensorElement(Tiling.Matmul t, int n, int nT, String iBase, String jBase, String[] ri, String[] rj,
                                   FormRegs cRow, FormRegs cIdx, Var vi, Var vj) {
        int[] o = tensorOffsets(n, nT);
        String io = r();
        String jo = r();
        op("add.u32 " + io + ", " + iBase + ", " + o[0]);
        op("add.u32 " + jo + ", " + jBase + ", " + o[1]);
        return cAt(t, io, jo, ri, rj, cRow, cIdx, vi, vj);
    }

    private static int log2(int powerOfTwo) {
        return Integer.numberOfTrailingZeros(powerOfTwo);
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
    private String[] cElement(Tiling.Matmul t, int qi, int qj, String i0, String j0, String tx, String ty, String[] ri,
                              String[] rj, FormRegs cRow, FormRegs cIdx, Var vi, Var vj) {
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
        return cAt(t, io, jo, ri, rj, cRow, cIdx, vi, vj);
    }

    /**
     * The address of the element of C at offsets {@code io}, {@code jo} from the ranges' starts, and the predicate
     * that is true where it lies outside the ranges.
     */
    private String[] cAt(Tiling.Matmul t, String io, String jo, String[] ri, String[] rj, FormRegs cRow,
                         FormRegs cIdx, Var vi, Var vj) {
        String inI = p();
        op("setp.lt.u32 " + inI + ", " + io + ", " + ri[1]);
        String iv = r();
        op("add.s32 " + iv + ", " + ri[0] + ", " + io);
        String skip = p();
        op("setp.ge.or.u32 " + skip + ", " + jo + ", " + rj[1] + ", !" + inI);
        String jv = r();
        op("add.s32 " + jv + ", " + rj[0] + ", " + jo);
        return new String[] {address(t.c().array(), cRow, cIdx, Map.of(vi, iv, vj, jv), skip), skip};
    }

    /**
     * Loads this thread's elements of A's and B's k tile {@code ktile} into {@code pa}, {@code pb} (0 outside
     * the ranges, and nothing loaded where {@code guard}, when given, is false).
     */
    private void stage(Tiling.Matmul t, String ktile, String i0, String j0, String[] ri, String[] rj, String[] rk,
                       String am, String ak, String bkk, String bn, FormRegs aRow, FormRegs aIdx, FormRegs bRow,
                       FormRegs bIdx, String[] pa, String[] pb, String guard, Var vi, Var vj, Var vk) {
        int depth = t.tensorCores() ? t.tile().tensorDepth() : t.tile().depth();
        int threads = t.tensorCores() ? t.tile().tensorThreads() : t.tile().threads();
        int blockJ = t.tile().blockJ();
        int strideA = threads / depth;
        int strideB = threads / blockJ;
        String k0 = r();
        op("shl.b32 " + k0 + ", " + ktile + ", " + log2(depth));
        String ka = r();
        op("add.u32 " + ka + ", " + k0 + ", " + ak);
        String kaIn = p();
        op("setp.lt.u32 " + kaIn + ", " + ka + ", " + rk[1]);
        if (guard != null) {
            op("and.pred " + kaIn + ", " + kaIn + ", " + guard);
        }
        String kaV = r();
        op("add.s32 " + kaV + ", " + rk[0] + ", " + ka);
        String jb = r();
        op("add.u32 " + jb + ", " + j0 + ", " + bn);
        String jbIn = p();
        op("setp.lt.u32 " + jbIn + ", " + jb + ", " + rj[1]);
        if (guard != null) {
            op("and.pred " + jbIn + ", " + jbIn + ", " + guard);
        }
        String jbV = r();
        op("add.s32 " + jbV + ", " + rj[0] + ", " + jb);
        for (int q = 0; q < pa.length; q++) {
            String im = r();
            op("add.u32 " + im + ", " + i0 + ", " + am);
            if (q > 0) {
                op("add.u32 " + im + ", " + im + ", " + (q * strideA));
            }
            String skipA = p();
            op("setp.ge.or.u32 " + skipA + ", " + im + ", " + ri[1] + ", !" + kaIn);
            String iv = r();
            op("add.s32 " + iv + ", " + ri[0] + ", " + im);
            String addrA = address(t.a().array(), aRow, aIdx, Map.of(vi, iv, vk, kaV), skipA);
            op("mov.f64 " + pa[q] + ", 0d0000000000000000");
            op("@!" + skipA + " ld.global.f64 " + pa[q] + ", [" + addrA + "]");
        }
        for (int q = 0; q < pb.length; q++) {
            String kb = r();
            op("add.u32 " + kb + ", " + k0 + ", " + bkk);
            if (q > 0) {
                op("add.u32 " + kb + ", " + kb + ", " + (q * strideB));
            }
            String skipB = p();
            op("setp.ge.or.u32 " + skipB + ", " + kb + ", " + rk[1] + ", !" + jbIn);
            String kv = r();
            op("add.s32 " + kv + ", " + rk[0] + ", " + kb);
            String addrB = address(t.b().array(), bRow, bIdx, Map.of(vk, kv, vj, jbV), skipB);
            op("mov.f64 " + pb[q] + ", 0d0000000000000000");
            op("@!" + skipB + " ld.global.f64 " + pb[q] + ", [" + addrB + "]");
        }
    }
}
