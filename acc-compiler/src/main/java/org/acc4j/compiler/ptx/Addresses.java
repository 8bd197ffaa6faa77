package org.acc4j.compiler.ptx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;

/**
 * The array addresses of one kernel: each element's address after Java's bounds check (unless the host proved it),
 * the rows of two-dimensional arrays (computed from the trailer when the rows are one block, else loaded from the
 * row table), and which row loads still hold on a straight-line stretch or were preloaded before a loop. A failing
 * check records its error site, numbered by the kernel ({@link KernelEmitter}), and the index.
 */
final class Addresses {
    private final KernelEmitter em;
    private final PtxWriter w;

    Addresses(KernelEmitter em, PtxWriter w) {
        this.em = em;
        this.w = w;
    }

    /** Row-table entries already loaded on this straight-line stretch: (array, row) to {address, length}. */
    private final Map<String, Reg[]> rows = new HashMap<>();
    private final Map<String, Set<Var>> rowVars = new HashMap<>();

    /** Emits a label: control may join here, so nothing loaded before is known to hold. */
    void label(String name) {
        w.label(name);
        rows.clear();
        rowVars.clear();
    }

    /** {@code v} changes: entries whose row subscript reads it no longer hold. */
    void forget(Var v) {
        rowVars.entrySet().removeIf(e -> {
            if (e.getValue().contains(v)) {
                rows.remove(e.getKey());
                return true;
            }
            return false;
        });
    }

    /**
     * A two-dimensional array's trailer, read once: {start, row length, row bytes, whether it is one block, whether it
     * is not}.
     */
    private final Map<ArrayRef, Reg[]> flat = new HashMap<>();

    /**
     * Reads how the rows lie from the launch's parameters ({@link KernelParam.RowBlock}): when they are one block, its
     * start and the row length, and a row's address is then computed as a flat array's element is, with no load
     * before the kernel's first element; otherwise each row's address is loaded from the table.
     */
    void flatLayout(ArrayRef a) {
        Reg start = w.reg(Type.I64);
        Reg pitch = w.reg(Type.I32);
        Reg rowBytes = w.reg(Type.I64);
        Reg block = w.reg(Type.PRED);
        w.ldParam("u64", start, "p_" + KernelEmitter.ident(a.name()) + "_block");
        w.op("cvta.to.global.u64", start, start);
        w.ldParam("s32", pitch, "p_" + KernelEmitter.ident(a.name()) + "_pitch");
        Reg jagged = w.reg(Type.PRED);
        w.setp("ge", "s32", block, pitch, 0);
        w.op("not.pred", jagged, block);
        w.op("mul.wide.s32", rowBytes, pitch, a.elem().bytes());
        flat.put(a, new Reg[] {start, pitch, rowBytes, block, jagged});
    }

    /** Rows preloaded before the loops being emitted, valid all through them: (array, row) to {address, length}. */
    final Map<String, Reg[]> hoistedRows = new HashMap<>();

    /**
     * Preloads, before a loop whose body is {@code body} and whose own indices are {@code varying}, the rows of the
     * two-dimensional accesses in it whose row subscript the loop does not change (a subscript that reads memory or
     * divides is left in place): a jagged array's row-table loads then leave the inner loop. A row outside the table
     * is not loaded (its access, if it runs, fails its bounds check first). Returns the keys added.
     */
    List<String> hoistRows(List<Stmt> body, Set<Var> varying) {
        Dataflow.assigned(body, varying);
        Map<String, Object[]> wanted = new LinkedHashMap<>();
        rowAccesses(body, wanted);
        List<String> added = new ArrayList<>();
        for (Map.Entry<String, Object[]> e : wanted.entrySet()) {
            ArrayRef array = (ArrayRef) e.getValue()[0];
            Expr rowExpr = (Expr) e.getValue()[1];
            if (hoistedRows.containsKey(e.getKey()) || Exprs.readsMemory(rowExpr)
                    || Exprs.any(rowExpr, x -> x instanceof Expr.Local l && varying.contains(l.var()))
                    || Exprs.any(rowExpr, x -> x instanceof Expr.Binary b
                            && (b.op() == org.acc4j.compiler.ir.BinOp.DIV || b.op() == org.acc4j.compiler.ir.BinOp.REM))) {
                continue;
            }
            w.comment("row " + e.getKey() + " preloaded for the loop below");
            Reg r = em.expr(rowExpr);
            Reg[] layout = flat.get(array);
            Reg load = w.reg(Type.PRED);
            w.raw("setp.lt.and.u32 " + load + ", " + r + ", " + em.lengths.get(array) + ", " + layout[4]);
            Reg entry = elementAddress(em.bases.get(array), r, ArrayRef.ROW_ENTRY_BYTES);
            hoistedRows.put(e.getKey(), rowAt(array, r, entry, load));
            added.add(e.getKey());
        }
        return added;
    }

    /** The (array, row) of every two-dimensional access in {@code stmts}, by key, each once. */
    private static void rowAccesses(List<Stmt> stmts, Map<String, Object[]> out) {
        for (Expr top : Dataflow.expressions(stmts)) {
            Dataflow.forEach(top, x -> {
                if (x instanceof Expr.Load l && l.row() != null) {
                    out.putIfAbsent(l.array().name() + "[" + l.row() + "]", new Object[] {l.array(), l.row()});
                }
            });
        }
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && st.row() != null) {
                out.putIfAbsent(st.array().name() + "[" + st.row() + "]", new Object[] {st.array(), st.row()});
            } else if (s instanceof Stmt.Atomic at && at.row() != null) {
                out.putIfAbsent(at.array().name() + "[" + at.row() + "]", new Object[] {at.array(), at.row()});
            } else if (s instanceof Stmt.If i) {
                rowAccesses(i.then(), out);
                rowAccesses(i.otherwise(), out);
            } else if (s instanceof Stmt.For f) {
                rowAccesses(f.body(), out);
            } else if (s instanceof Stmt.While wl) {
                rowAccesses(wl.body(), out);
            }
        }
    }

    /**
     * Row {@code r}'s address and length: computed from the trailer when the rows are one block, else loaded from
     * its table entry at {@code entry} where {@code load} holds.
     */
    Reg[] rowAt(ArrayRef array, Reg r, Reg entry, Reg load) {
        Reg data = w.reg(Type.I64);
        Reg len = w.reg(Type.I32);
        Reg[] layout = flat.get(array);
        Reg r64 = w.reg(Type.I64);
        w.op("cvt.s64.s32", r64, r);
        w.op("mul.lo.s64", r64, r64, layout[2]);
        w.op("add.s64", data, layout[0], r64);
        w.mov(len, layout[1]);
        w.predicated(load, true, "ld.global.nc.u64 " + data + ", [" + entry + "]");
        w.predicated(load, true, "ld.global.nc.u32 " + len + ", [" + entry + "+8]");
        return new Reg[] {data, len};
    }

    /**
     * {@code array[row]}'s device address and length, after the row's bounds check: computed from the trailer when
     * the rows are one block (as a flat array is indexed), else loaded from the row table.
     */
    Reg[] row(ArrayRef array, Expr rowExpr, int line, boolean check) {
        String key = array.name() + "[" + rowExpr + "]";
        Reg[] known = rows.get(key);
        if (known != null) {
            return known;
        }
        Reg[] preloaded = hoistedRows.get(key);
        if (preloaded != null) {
            if (check) {
                // the bounds check stays where the access is; its address is not needed
                address(array, em.expr(rowExpr), line, ArrayRef.ROW_ENTRY_BYTES, true);
            }
            return preloaded;
        }
        Reg r = em.expr(rowExpr);
        Reg entry = address(array, r, line, ArrayRef.ROW_ENTRY_BYTES, check);
        Reg[] out = rowAt(array, r, entry, flat.get(array)[4]);
        Set<Var> used = new HashSet<>();
        Dataflow.forEach(rowExpr, x -> {
            if (x instanceof Expr.Local l) {
                used.add(l.var());
            }
        });
        if (!Exprs.readsMemory(rowExpr)) {
            rows.put(key, out);
            rowVars.put(key, used);
        }
        return out;
    }

    /** The address of {@code array[row][index]} after both bounds checks. */
    Reg address2(ArrayRef array, Expr rowExpr, Reg index, int line, boolean check) {
        Reg[] row = row(array, rowExpr, line, check);
        if (!check) {
            return elementAddress(row[0], index, array.elem().bytes());
        }
        Reg rowIndex = em.expr(rowExpr);
        Reg bad = w.reg(Type.PRED);
        w.setp("ge", "u32", bad, index, row[1]);
        int code = em.site(ErrorSite.Kind.INDEX_OUT_OF_BOUNDS, array.name() + "[]", line);
        String stub = "$L_oob_" + code;
        w.braIf(bad, true, stub);
        String raise = em.raiseTarget;
        em.stubWriters.add(() -> {
            w.label(stub);
            w.mov(em.errCode, code);
            Reg hi = w.reg(Type.I64);
            Reg lo = w.reg(Type.I64);
            w.op("cvt.u64.u32", hi, rowIndex);
            w.op("shl.b64", hi, hi, 32);
            w.op("cvt.u64.u32", lo, index);
            w.op("or.b64", em.errDetail, hi, lo);
            w.bra(raise);
        });
        Reg offset = w.reg(Type.I64);
        Reg addr = w.reg(Type.I64);
        byteOffset(offset, index, array.elem().bytes());
        w.op("add.s64", addr, row[0], offset);
        return addr;
    }

    /** {@code offset = index * bytes} in 64 bits (a sign extension for one-byte elements). */
    void byteOffset(Reg offset, Reg index, int bytes) {
        if (bytes == 1) {
            w.op("cvt.s64.s32", offset, index);
        } else {
            w.op("mul.wide.s32", offset, index, bytes);
        }
    }

    /** {@code base + index * bytes}. */
    Reg elementAddress(Reg base, Reg index, int bytes) {
        Reg offset = w.reg(Type.I64);
        Reg addr = w.reg(Type.I64);
        byteOffset(offset, index, bytes);
        w.op("add.s64", addr, base, offset);
        return addr;
    }

    /** The address of element {@code index} of {@code bytes} bytes, after Java's bounds check unless hoisted. */
    Reg address(ArrayRef array, Reg index, int line, int bytes, boolean check) {
        if (!check) {
            return elementAddress(em.bases.get(array), index, bytes);
        }
        Reg bad = w.reg(Type.PRED);
        w.setp("ge", "u32", bad, index, em.lengths.get(array));
        int code = em.site(ErrorSite.Kind.INDEX_OUT_OF_BOUNDS, array.name(), line);
        String stub = "$L_oob_" + code;
        w.braIf(bad, true, stub);
        String raise = em.raiseTarget;
        em.stubWriters.add(() -> {
            w.label(stub);
            w.mov(em.errCode, code);
            w.op("cvt.s64.s32", em.errDetail, index);
            w.bra(raise);
        });
        Reg offset = w.reg(Type.I64);
        Reg addr = w.reg(Type.I64);
        byteOffset(offset, index, bytes);
        w.op("add.s64", addr, em.bases.get(array), offset);
        return addr;
    }
}
