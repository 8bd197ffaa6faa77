package org.acc4j.compiler.jvm;

import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Linear;
import org.acc4j.compiler.pass.Tiling;
import org.objectweb.asm.Label;

/**
 * The proven variant's nest in an order other than as written, under {@link JvmEmitter}: the loops interchanged as
 * {@link LoopOrder} chose them, or a matmul's rows of c accumulated in a buffer along k. Both run a chunk's
 * iterations {@code [lo, hi)} of the outermost loop; the statements inside are {@link JvmEmitter}'s.
 */
abstract class OrderEmitter extends ExprEmitter {
    /** Writes statements as the kernel runs them. */
    abstract void statements(List<Stmt> stmts);

    /** A matmul whose rows the host accumulates: i the chunked level alone, loops by one to strict bounds, flat arrays. */
    static boolean hostMatmul(Tiling.Matmul mm, Mapping m) {
        if (mm == null || m.levels().get(0).loops().size() != 1
                || !m.levels().get(0).outer().index().equals(mm.i().index())) {
            return false;
        }
        for (Stmt.For f : List.of(mm.i(), mm.j(), mm.k())) {
            if (f.cond() != Cond.LT || f.step() != 1 || f.stride() != null || f.index().type() != Type.I32
                    || f.lower().type() != Type.I32 || f.bound().type() != Type.I32) {
                return false;
            }
        }
        return mm.a().row() == null && mm.b().row() == null && mm.c().row() == null;
    }

    /**
     * The nest in {@code order} (the region's parallel {@code levels} reordered): the chunk's iterations
     * {@code [lo, hi)} of the first level, every other level whole, each as Java's counted loop with its bounds
     * evaluated once (they are loop-invariant, see {@link LoopOrder}), and the innermost level's body inside.
     */
    void reordered(List<Mapping.Level> order, List<Mapping.Level> levels) {
        int n = order.size();
        int[] index = new int[n];
        int[] end = new int[n];
        for (int q = 0; q < n; q++) {
            Stmt.For f = order.get(q).outer();
            index[q] = newInt();
            end[q] = newInt();
            expr(f.lower());
            if (q == 0) {
                // from lower + lo to lower + hi: within the loop's bound, so in int range
                mv.visitInsn(DUP);
                mv.visitInsn(I2L);
                mv.visitVarInsn(LLOAD, 5);
                mv.visitInsn(LADD);
                mv.visitInsn(L2I);
                mv.visitVarInsn(ISTORE, end[q]);
                mv.visitInsn(I2L);
                mv.visitVarInsn(LLOAD, 3);
                mv.visitInsn(LADD);
                mv.visitInsn(L2I);
                mv.visitVarInsn(ISTORE, index[q]);
            } else {
                mv.visitVarInsn(ISTORE, index[q]);
                expr(f.bound());
                mv.visitVarInsn(ISTORE, end[q]);
            }
        }
        // the inner levels restart at their lower bound on each iteration of the level around them
        int[] lower = new int[n];
        for (int q = 1; q < n; q++) {
            lower[q] = newInt();
            mv.visitVarInsn(ILOAD, index[q]);
            mv.visitVarInsn(ISTORE, lower[q]);
        }
        Label[] tests = new Label[n];
        Label[] ends = new Label[n];
        for (int q = 0; q < n; q++) {
            if (q > 0) {
                mv.visitVarInsn(ILOAD, lower[q]);
                mv.visitVarInsn(ISTORE, index[q]);
            }
            tests[q] = new Label();
            ends[q] = new Label();
            mv.visitLabel(tests[q]);
            mv.visitVarInsn(ILOAD, index[q]);
            mv.visitVarInsn(ILOAD, end[q]);
            mv.visitJumpInsn(IF_ICMPGE, ends[q]);
            mv.visitVarInsn(ILOAD, index[q]);
            store(order.get(q).outer().index());
        }
        statements(levels.get(levels.size() - 1).outer().body());
        for (int q = n - 1; q >= 0; q--) {
            mv.visitIincInsn(index[q], 1);
            mv.visitJumpInsn(GOTO, tests[q]);
            mv.visitLabel(ends[q]);
        }
    }

    /**
     * A matmul nest's chunk of rows i, each row of c accumulated in a buffer along k: the buffer starts at the
     * nest's start value (or c's row), gets {@code buffer[j] + a(i, k) * b(k, j)} for each k in order and every j,
     * and is stored into c. Each element sees the same operations in the same order as Java's loop over k (a multiply
     * rounded, then an add), so the result is Java's bit for bit, while the innermost loop walks b's row and the
     * buffer contiguously. Only in the proven variant: the matmul shape holds every access proven in bounds.
     */
    void matmulRows(Tiling.Matmul mm) {
        int ilo = newInt();
        int i = newInt();
        int iEnd = newInt();
        int jlo = newInt();
        int nj = newInt();
        int k = newInt();
        int kEnd = newInt();
        int jj = newInt();
        int row = next++;
        int aik = newLong();
        expr(mm.i().lower());
        mv.visitVarInsn(ISTORE, ilo);
        expr(mm.j().lower());
        mv.visitVarInsn(ISTORE, jlo);
        // nj = max(0, bound - lower): the row's length
        expr(mm.j().bound());
        mv.visitVarInsn(ILOAD, jlo);
        mv.visitInsn(ISUB);
        push(0);
        mv.visitMethodInsn(INVOKESTATIC, MATH, "max", "(II)I", false);
        mv.visitVarInsn(ISTORE, nj);
        mv.visitVarInsn(ILOAD, nj);
        mv.visitIntInsn(NEWARRAY, T_DOUBLE);
        mv.visitVarInsn(ASTORE, row);
        // i from lower + lo to lower + hi
        mv.visitVarInsn(ILOAD, ilo);
        mv.visitInsn(I2L);
        mv.visitVarInsn(LLOAD, 3);
        mv.visitInsn(LADD);
        mv.visitInsn(L2I);
        mv.visitVarInsn(ISTORE, i);
        mv.visitVarInsn(ILOAD, ilo);
        mv.visitInsn(I2L);
        mv.visitVarInsn(LLOAD, 5);
        mv.visitInsn(LADD);
        mv.visitInsn(L2I);
        mv.visitVarInsn(ISTORE, iEnd);
        Label rows = new Label();
        Label rowsEnd = new Label();
        mv.visitLabel(rows);
        mv.visitVarInsn(ILOAD, i);
        mv.visitVarInsn(ILOAD, iEnd);
        mv.visitJumpInsn(IF_ICMPGE, rowsEnd);
        mv.visitVarInsn(ILOAD, i);
        store(mm.i().index());
        // the start: the constant, or c's row
        overRow(jj, nj, jlo, mm.j(), () -> {
            mv.visitVarInsn(ALOAD, row);
            mv.visitVarInsn(ILOAD, jj);
            if (mm.accumulate()) {
                element(mm.c());
            } else {
                expr(mm.init());
            }
            mv.visitInsn(DASTORE);
        });
        // along k: buffer[j] = buffer[j] + a(i, k) * b(k, j)
        expr(mm.k().lower());
        mv.visitVarInsn(ISTORE, k);
        expr(mm.k().bound());
        mv.visitVarInsn(ISTORE, kEnd);
        Label ks = new Label();
        Label ksEnd = new Label();
        mv.visitLabel(ks);
        mv.visitVarInsn(ILOAD, k);
        mv.visitVarInsn(ILOAD, kEnd);
        mv.visitJumpInsn(IF_ICMPGE, ksEnd);
        mv.visitVarInsn(ILOAD, k);
        store(mm.k().index());
        element(mm.a());
        mv.visitVarInsn(DSTORE, aik);
        overRow(jj, nj, jlo, mm.j(), () -> {
            mv.visitVarInsn(ALOAD, row);
            mv.visitVarInsn(ILOAD, jj);
            mv.visitInsn(DUP2);
            mv.visitInsn(DALOAD);
            mv.visitVarInsn(DLOAD, aik);
            element(mm.b());
            mv.visitInsn(DMUL);
            mv.visitInsn(DADD);
            mv.visitInsn(DASTORE);
        });
        mv.visitIincInsn(k, 1);
        mv.visitJumpInsn(GOTO, ks);
        mv.visitLabel(ksEnd);
        // the row into c
        overRow(jj, nj, jlo, mm.j(), () -> {
            mv.visitVarInsn(ALOAD, arraySlots.get(mm.c().array()));
            index(mm.c().index());
            mv.visitVarInsn(ALOAD, row);
            mv.visitVarInsn(ILOAD, jj);
            mv.visitInsn(DALOAD);
            mv.visitInsn(DASTORE);
        });
        mv.visitIincInsn(i, 1);
        mv.visitJumpInsn(GOTO, rows);
        mv.visitLabel(rowsEnd);
    }

    /** {@code for (jj = 0; jj < nj; jj++) { j = jlo + jj; body }}. */
    private void overRow(int jj, int nj, int jlo, Stmt.For j, Runnable body) {
        push(0);
        mv.visitVarInsn(ISTORE, jj);
        Label test = new Label();
        Label end = new Label();
        mv.visitLabel(test);
        mv.visitVarInsn(ILOAD, jj);
        mv.visitVarInsn(ILOAD, nj);
        mv.visitJumpInsn(IF_ICMPGE, end);
        mv.visitVarInsn(ILOAD, jlo);
        mv.visitVarInsn(ILOAD, jj);
        mv.visitInsn(IADD);
        store(j.index());
        body.run();
        mv.visitIincInsn(jj, 1);
        mv.visitJumpInsn(GOTO, test);
        mv.visitLabel(end);
    }

    /** Pushes a flat access's element (proven in bounds). */
    private void element(Tiling.Access a) {
        mv.visitVarInsn(ALOAD, arraySlots.get(a.array()));
        index(a.index());
        mv.visitInsn(DALOAD);
    }

    /** Pushes {@code rest + Σ coefficient * index} of a linear form, the indices from their locals. */
    private void index(Linear.Form f) {
        Expr e = f.rest() != null ? f.rest() : new Expr.Const(Type.I32, 0);
        for (Map.Entry<Var, Expr> c : f.coefficients().entrySet()) {
            e = new Expr.Binary(BinOp.ADD, e, new Expr.Binary(BinOp.MUL, c.getValue(), new Expr.Local(c.getKey())));
        }
        expr(e);
    }
}
