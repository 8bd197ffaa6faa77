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
public class TiledEmitter {
    final StringBuilder code = new StringBuilder();
    /** Declarations before the entry, at module scope (the dynamic shared memory of a tensor-core kernel). */
    String moduleScope = "";
    int r32;
    int r64;
    int pred;
    int f64;
    final MethodBody body;
    final List<KernelParam> params;
    final Map<Object, String> scalarCache = new HashMap<>();

    TiledEmitter(MethodBody body, List<KernelParam> params) {
        this.body = body;
        this.params = params;
    }

    /** The tiled kernel {@code entry} for {@code t}, with the plain kernel's {@code params}. */
    public static String emit(MethodBody body, Tiling.Kernel t, String entry, List<KernelParam> params, int sm) {
        TiledEmitter e = t instanceof Tiling.Transpose ? new TiledEmitter(body, params)
                : ((Tiling.Matmul) t).tensorCores() ? new TensorTiles(body, params) : new MatmulTiles(body, params);
        String text;
        int[] block;
        String occupancy = "";
        if (t instanceof Tiling.Transpose tr) {
            text = e.transposeBody(tr);
            block = new int[] {Tiling.TILE, Tiling.ROWS};
        } else {
            Tiling.Matmul mm = (Tiling.Matmul) t;
            if (mm.tensorCores()) {
                text = ((TensorTiles) e).tensorBody(mm);
                block = new int[] {mm.tensor().threads(), 1};
                occupancy = ".minnctapersm " + mm.tensor().minBlocks() + "\n";
            } else {
                text = ((MatmulTiles) e).matmulBody(mm);
                block = new int[] {mm.tile().threadsX(), mm.tile().threadsY()};
                // the blocks per SM the tile is sized for: ptxas keeps the registers a thread uses within them
                occupancy = ".minnctapersm " + mm.tile().minBlocks() + "\n";
            }
        }
        return "//\n// acc4j tiled kernel for " + body.owner().replace('/', '.') + "." + body.name() + ": " + t.note()
                + "\n//\n.version " + KernelEmitter.ptxVersion(sm) + "\n.target sm_" + sm + "\n.address_size 64\n\n"
                + e.moduleScope + ".visible .entry " + entry + "(\n" + e.decl() + "\n)\n.maxntid " + block[0] + ", " + block[1]
                + ", 1\n" + occupancy + "{\n" + e.regs() + text + "}\n";
    }

    String decl() {
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

    static String paramType(Type t) {
        return switch (t) {
            case I32 -> "s32";
            case I64 -> "s64";
            case F32 -> "f32";
            case F64 -> "f64";
            case PRED -> "u32";
        };
    }

    String regs() {
        return "\t.reg .b32 %r<" + (r32 + 1) + ">;\n\t.reg .b64 %rd<" + (r64 + 1) + ">;\n\t.reg .f64 %fd<" + (f64 + 1)
                + ">;\n\t.reg .pred %p<" + (pred + 1) + ">;\n";
    }

    String fd() {
        return "%fd" + (++f64);
    }

    String r() {
        return "%r" + (++r32);
    }

    String rd() {
        return "%rd" + (++r64);
    }

    String p() {
        return "%p" + (++pred);
    }

    void op(String text) {
        code.append('\t').append(text).append(";\n");
    }

    void label(String l) {
        code.append(l).append(":\n");
    }

    // ---------------------------------------------------------------- invariant scalars

    int indexOf(KernelParam p) {
        int k = params.indexOf(p);
        if (k < 0) {
            throw new IllegalStateException("no parameter " + p + " in the plain kernel");
        }
        return k;
    }

    /** The global address of {@code a}'s data (its row table for two dimensions). */
    String base(ArrayRef a) {
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
            blockLayout(a);
            return reg;
        });
    }

    /**
     * A two-dimensional array's layout from its launch parameters ({@link KernelParam.RowBlock}), read with its base:
     * {start, row length, whether the rows are one block}. A row's address is then {@code start + row * length *
     * elementBytes}, as a flat array's element is, and its row-table entry is loaded only when they are not.
     */
    final Map<ArrayRef, String[]> blocks = new HashMap<>();

    private void blockLayout(ArrayRef a) {
        int start = -1;
        int length = -1;
        for (int q = 0; q < params.size(); q++) {
            if (params.get(q) instanceof KernelParam.RowBlock b && b.array().equals(a)) {
                if (b.part() == KernelParam.RowBlock.Part.START) {
                    start = q;
                } else {
                    length = q;
                }
            }
        }
        if (start < 0 || length < 0) {
            return;
        }
        String s = rd();
        op("ld.param.u64 " + s + ", [p" + start + "]");
        op("cvta.to.global.u64 " + s + ", " + s);
        String len = r();
        op("ld.param.s32 " + len + ", [p" + length + "]");
        String block = p();
        op("setp.ge.s32 " + block + ", " + len + ", 0");
        blocks.put(a, new String[] {s, len, block});
    }

    /**
     * The address of row {@code ri} of {@code a}: computed from its block when the rows are one, else loaded from
     * its row-table entry, except where {@code skip} (null for never) says the row is not used.
     */
    String rowAddress(ArrayRef a, String ri, String skip) {
        String off = rd();
        op("mul.wide.s32 " + off + ", " + ri + ", " + ArrayRef.ROW_ENTRY_BYTES);
        String entry = rd();
        op("add.s64 " + entry + ", " + base(a) + ", " + off);
        String rowData = rd();
        String[] layout = blocks.get(a);
        if (layout == null) {
            // outside the nest's range the row may not exist: no load there (the address is not used)
            op("mov.u64 " + rowData + ", 0");
            op((skip == null ? "" : "@!" + skip + " ") + "ld.global.u64 " + rowData + ", [" + entry + "]");
            return rowData;
        }
        String elements = rd();
        op("mul.wide.s32 " + elements + ", " + ri + ", " + layout[1]);
        String bytes = rd();
        op("shl.b64 " + bytes + ", " + elements + ", " + Integer.numberOfTrailingZeros(a.elem().bytes()));
        op("add.s64 " + rowData + ", " + layout[0] + ", " + bytes);
        String noLoad = layout[2];
        if (skip != null) {
            noLoad = p();
            op("or.pred " + noLoad + ", " + skip + ", " + layout[2]);
        }
        op("@!" + noLoad + " ld.global.u64 " + rowData + ", [" + entry + "]");
        return rowData;
    }

    /** An invariant {@code int} expression (see {@code Tiling.Scalars}) in a register. */
    String scalar(Expr e) {
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
    String[] range(Stmt.For f) {
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
    String[] form(Linear.Form f, Var read, Var write) {
        Expr cr = f.coefficient(read);
        Expr cw = f.coefficient(write);
        return new String[] {cr == null ? null : scalar(cr), cw == null ? null : scalar(cw), scalar(f.rest())};
    }

    /** {@code Σ c * v + rest} for the read- and write-loop index values {@code vr}, {@code vw}. */
    String subscript(String[] form, String vr, String vw) {
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
    String address(ArrayRef a, String[] row, String[] index, String vr, String vw, String skip) {
        String data = base(a);
        if (row != null) {
            data = rowAddress(a, subscript(row, vr, vw), skip);
        }
        String ci = subscript(index, vr, vw);
        String off = rd();
        op("mul.wide.s32 " + off + ", " + ci + ", " + a.elem().bytes());
        String addr = rd();
        op("add.s64 " + addr + ", " + data + ", " + off);
        return addr;
    }

    // ---------------------------------------------------------------- transpose

    String transposeBody(Tiling.Transpose t) {
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

    /**
     * What both matmul kernels set up first, in this order: the loop indices, their ranges (start and end in
     * registers), the subscript forms of A, B and C in registers, the arrays' bases, and the number of tiles of each
     * range.
     */
    record MatmulRegs(Var vi, Var vj, Var vk, String[] ri, String[] rj, String[] rk, FormRegs aRow, FormRegs aIdx,
                      FormRegs bRow, FormRegs bIdx, FormRegs cRow, FormRegs cIdx, String tilesI, String tilesJ,
                      String tilesK) {
    }

    /** {@link MatmulRegs} of {@code t} for tiles of {@code blockI × blockJ}, {@code depth} deep. */
    MatmulRegs matmulRegs(Tiling.Matmul t, int blockI, int blockJ, int depth) {
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
        return new MatmulRegs(t.i().index(), t.j().index(), t.k().index(), ri, rj, rk, aRow, aIdx, bRow, bIdx, cRow,
                cIdx, tiles(ri[1], blockI), tiles(rj[1], blockJ), tiles(rk[1], depth));
    }

    /** The number of tiles of {@code size} (a power of two) in a range that ends at {@code n}, in a new register. */
    String tiles(String n, int size) {
        String reg = r();
        op("add.u32 " + reg + ", " + n + ", " + (size - 1));
        op("shr.u32 " + reg + ", " + reg + ", " + log2(size));
        return reg;
    }

    /** A linear form's coefficients (by loop index) and rest in registers. */
    record FormRegs(Map<Var, String> coefficients, String rest) {
    }

    FormRegs formRegs(Linear.Form f) {
        if (f == null) {
            return null;
        }
        Map<Var, String> c = new java.util.LinkedHashMap<>();
        for (Map.Entry<Var, Expr> t : f.coefficients().entrySet()) {
            c.put(t.getKey(), scalar(t.getValue()));
        }
        return new FormRegs(c, scalar(f.rest()));
    }

    String subscript(FormRegs f, Map<Var, String> values) {
        String acc = f.rest();
        for (Map.Entry<Var, String> t : f.coefficients().entrySet()) {
            String s = r();
            op("mad.lo.s32 " + s + ", " + t.getValue() + ", " + values.get(t.getKey()) + ", " + acc);
            acc = s;
        }
        return acc;
    }

    /** The global address of an element of {@code a}; the row-table load only where {@code skip} is false. */
    String address(ArrayRef a, FormRegs row, FormRegs index, Map<Var, String> values, String skip) {
        return element(a, row == null ? base(a) : rowAddress(a, subscript(row, values), skip), index, values);
    }

    /** The global address of an element of {@code a} at {@code index} in the row (or array) at {@code data}. */
    String element(ArrayRef a, String data, FormRegs index, Map<Var, String> values) {
        String ci = subscript(index, values);
        String off = rd();
        op("mul.wide.s32 " + off + ", " + ci + ", " + a.elem().bytes());
        String addr = rd();
        op("add.s64 " + addr + ", " + data + ", " + off);
        return addr;
    }

    static int log2(int powerOfTwo) {
        return Integer.numberOfTrailingZeros(powerOfTwo);
    }

    /**
     * The address of the element of C at offsets {@code io}, {@code jo} from the ranges' starts, and the predicate
     * that is true where it lies outside the ranges.
     */
    String[] cAt(Tiling.Matmul t, String io, String jo, MatmulRegs nest) {
        String inI = p();
        op("setp.lt.u32 " + inI + ", " + io + ", " + nest.ri()[1]);
        String iv = r();
        op("add.s32 " + iv + ", " + nest.ri()[0] + ", " + io);
        String skip = p();
        op("setp.ge.or.u32 " + skip + ", " + jo + ", " + nest.rj()[1] + ", !" + inI);
        String jv = r();
        op("add.s32 " + jv + ", " + nest.rj()[0] + ", " + jo);
        return new String[] {address(t.c().array(), nest.cRow(), nest.cIdx(), Map.of(nest.vi(), iv, nest.vj(), jv),
                skip), skip};
    }
}
