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
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;

/**
 * The array addresses of one kernel: each element's address after Java's bounds check (unless the host proved it),
 * the rows of two-dimensional arrays (computed from the trailer when the rows are one block, else loaded from the
 * row table), and which row loads still hold on a straight-line stretch or were preloaded before a loop. A failing
 * check records its error site, numbered by the kernel ({@link KernelEmitter}), and the index.
 *
 * <p>An access the host proved in bounds ({@link RangeCheck}) is addressed from its subscript's linear form
 * {@code Σ c_k * i_k + rest} in 64 bits ({@link #proven}): the accesses of a stencil share one moved base per array
 * and differ by constant offsets in the load or store itself, as {@code b[i*n + j - 1]} and {@code b[i*n + j + 1]} are
 * {@code [base-8]} and {@code [base+8]}.
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

    /**
     * Proven subscripts' linear parts on this straight-line stretch: by key, the 64-bit sum {@code Σ c_k * i_k} of a
     * form's terms ({@code "#" + terms}) and a base moved by it ({@code origin + "#" + terms}).
     */
    private final Map<String, Reg> linear = new HashMap<>();
    private final Map<String, Set<Var>> linearVars = new HashMap<>();

    /** Emits a label: control may join here, so nothing loaded or summed before is known to hold. */
    void label(String name) {
        w.label(name);
        rows.clear();
        rowVars.clear();
        linear.clear();
        linearVars.clear();
    }

    /** {@code v} changes: entries whose row subscript or linear form reads it no longer hold. */
    void forget(Var v) {
        rowVars.entrySet().removeIf(e -> {
            if (e.getValue().contains(v)) {
                rows.remove(e.getKey());
                return true;
            }
            return false;
        });
        linearVars.entrySet().removeIf(e -> {
            if (e.getValue().contains(v)) {
                linear.remove(e.getKey());
                return true;
            }
            return false;
        });
    }

    /** An element's address: a register plus a constant byte offset (the load's or store's own immediate). */
    record Place(Reg base, long offset) {
    }

    /**
     * The address of an access the host proved in bounds, from its subscript's linear form {@code Σ c_k * i_k + rest}
     * ({@code form}, the access's {@link RangeCheck.Bound}) computed in 64 bits from {@code origin} (the array's base,
     * or its row's address): the terms' sum is shared by every access with the same terms, the moved base by every
     * access of the same array or row, and a constant rest is the instruction's offset. The form must
     * {@linkplain #qualifies qualify}; otherwise the caller addresses the subscript's 32-bit value.
     *
     * <p>The value is Java's: the host proved the exact sum, with the coefficients and the rest at their Java
     * ({@code int}, wrapping) values, in {@code [0, length)}, and Java's subscript is congruent to it modulo 2^32, so
     * the two are equal; computed here in 64 bits from the same values, with sign-extended products, it is the exact
     * sum. A form qualifies when everything in it is an {@code int} and neither a coefficient nor the rest can throw
     * (no division, remainder, load, math call or row length): it is then evaluated where the access stands, in any
     * order, with no effect Java would see.
     *
     * @param originKey names {@code origin} (the array, or the array and its row subscript)
     * @param originVars the variables {@code origin} depends on
     */
    private Place proven(Reg origin, String originKey, Set<Var> originVars, RangeCheck.Bound form, int bytes) {
        StringBuilder terms = new StringBuilder();
        Set<Var> used = new HashSet<>(originVars);
        for (RangeCheck.Term t : form.terms()) {
            Var v = t.loop().index();
            terms.append(" + ").append(v.slot()).append('*').append(t.coefficient());
            used.add(v);
            localsOf(t.coefficient(), used);
        }
        Reg moved = origin;
        if (!form.terms().isEmpty()) {
            String sumKey = "#" + terms;
            Reg sum = linear.get(sumKey);
            if (sum == null) {
                for (RangeCheck.Term t : form.terms()) {
                    Reg product = w.reg(Type.I64);
                    Reg index = em.var(t.loop().index());
                    if (t.coefficient() instanceof Expr.Const k && (int) k.bits() == 1) {
                        w.op("cvt.s64.s32", product, index);
                    } else if (t.coefficient() instanceof Expr.Const k) {
                        w.op("mul.wide.s32", product, index, (int) k.bits());
                    } else {
                        w.op("mul.wide.s32", product, index, em.expr(t.coefficient()));
                    }
                    if (sum == null) {
                        sum = product;
                    } else {
                        Reg s = w.reg(Type.I64);
                        w.op("add.s64", s, sum, product);
                        sum = s;
                    }
                }
                remember(sumKey, sum, used);
            }
            String movedKey = originKey + sumKey;
            moved = linear.get(movedKey);
            if (moved == null) {
                Reg offset = w.reg(Type.I64);
                moved = w.reg(Type.I64);
                w.op("shl.b64", offset, sum, Integer.numberOfTrailingZeros(bytes));
                w.op("add.s64", moved, origin, offset);
                remember(movedKey, moved, used);
            }
        }
        if (form.rest() instanceof Expr.Const k) {
            return new Place(moved, (long) (int) k.bits() * bytes);
        }
        Reg rest = w.reg(Type.I64);
        Reg at = w.reg(Type.I64);
        w.op("mul.wide.s32", rest, em.expr(form.rest()), bytes);
        w.op("add.s64", at, moved, rest);
        return new Place(at, 0);
    }

    private void remember(String key, Reg r, Set<Var> used) {
        linear.put(key, r);
        linearVars.put(key, Set.copyOf(used));
    }

    /** Whether a proven form is {@code int} throughout and nothing in it can throw. */
    private static boolean qualifies(RangeCheck.Bound form) {
        if (form == null || form.rest().type() != Type.I32 || !cannotThrow(form.rest())) {
            return false;
        }
        for (RangeCheck.Term t : form.terms()) {
            if (t.loop().index().type() != Type.I32 || t.coefficient().type() != Type.I32
                    || !cannotThrow(t.coefficient())) {
                return false;
            }
        }
        return true;
    }

    private static boolean cannotThrow(Expr e) {
        return !Exprs.any(e, x -> x instanceof Expr.Load || x instanceof Expr.Call
                || (x instanceof Expr.Length len && len.row() != null)
                || (x instanceof Expr.Binary b && (b.op() == BinOp.DIV || b.op() == BinOp.REM)));
    }

    private static void localsOf(Expr e, Set<Var> out) {
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Local l) {
                out.add(l.var());
            }
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

    /** Whether an access emitted without its check is addressed from its proven linear form ({@link #proven}). */
    static boolean linear(RangeCheck proof) {
        return proof != null && qualifies(proof.index());
    }

    /**
     * The place of an access emitted without its bounds check whose proof is {@link #linear} ({@code array[index]}, or
     * {@code array[row][index]} when {@code rowExpr} is not null), from its proven linear form.
     */
    Place unchecked(ArrayRef array, Expr rowExpr, RangeCheck proof, int line) {
        int bytes = array.elem().bytes();
        if (rowExpr == null) {
            return proven(em.bases.get(array), array.name(), Set.of(), proof.index(), bytes);
        }
        Reg[] row = row(array, rowExpr, line, false);
        Set<Var> used = new HashSet<>();
        localsOf(rowExpr, used);
        return proven(row[0], array.name() + "[" + rowExpr + "]", used, proof.index(), bytes);
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
