package org.acc4j.compiler.jvm;

import java.util.List;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * The arrays a nest writes only at its chunked loop's own index: {@code y[i] = s} with {@code i} the nest's outer
 * loop, alone in the outermost parallel level, an {@code int} stepping by one up to a strict bound that the body
 * never assigns; a one-dimensional array, stored nowhere else (no other subscript, no atomic operation, not in the
 * prologue). Chunk {@code c} of such a nest writes such an array only at {@code lower + t} for its iterations
 * {@code t}, so each chunk can save its own range just before it runs ({@link WrittenArrays}).
 */
final class ChunkWrites {
    private ChunkWrites() {
    }

    /** By position in {@code arrays}: whether it is written only at the chunked loop's index; null when none is. */
    static boolean[] of(Region r, boolean chunked, List<ArrayRef> arrays, Set<ArrayRef> written) {
        Mapping m = r.mapping();
        if (!chunked || m == null || m.levels().isEmpty() || m.levels().get(0).loops().size() != 1) {
            return null;
        }
        Stmt.For f = r.loop();
        if (f.stride() != null || f.cond() != Cond.LT || f.step() != 1 || !JvmEmitter.unitStep(f)
                || assigns(f.body(), f.index())) {
            return null;
        }
        boolean[] out = new boolean[arrays.size()];
        boolean any = false;
        for (int i = 0; i < out.length; i++) {
            ArrayRef a = arrays.get(i);
            if (written.contains(a) && a.dims() == 1 && !writes(r.prologue(), a) && onlyAt(f.body(), a, f.index())) {
                out[i] = true;
                any = true;
            }
        }
        return any ? out : null;
    }

    /** The chunked loop's first index for a call, or null when it cannot be evaluated before the run. */
    static Long lower(Region r, Evaluator ev) {
        try {
            ev.run(r.devicePrologue());
            return ev.evalLong(r.loop().lower());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Whether every store to {@code a} in {@code stmts} is {@code a[index]}, with no atomic operation on it. */
    private static boolean onlyAt(List<Stmt> stmts, ArrayRef a, Var index) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && st.array().equals(a)) {
                if (st.row() != null || !(st.index() instanceof Expr.Local l) || !l.var().equals(index)) {
                    return false;
                }
            } else if (s instanceof Stmt.Atomic at && at.array().equals(a)) {
                return false;
            } else if (s instanceof Stmt.If i) {
                if (!onlyAt(i.then(), a, index) || !onlyAt(i.otherwise(), a, index)) {
                    return false;
                }
            } else if (s instanceof Stmt.While w) {
                if (!onlyAt(w.body(), a, index)) {
                    return false;
                }
            } else if (s instanceof Stmt.For f) {
                if (!onlyAt(f.body(), a, index)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether {@code stmts} store to {@code a} or operate on it atomically. */
    private static boolean writes(List<Stmt> stmts, ArrayRef a) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && st.array().equals(a) || s instanceof Stmt.Atomic at && at.array().equals(a)) {
                return true;
            }
            if (s instanceof Stmt.If i && (writes(i.then(), a) || writes(i.otherwise(), a))
                    || s instanceof Stmt.While w && writes(w.body(), a) || s instanceof Stmt.For f && writes(f.body(), a)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code stmts} assign {@code v} (or use it as a loop's index). */
    private static boolean assigns(List<Stmt> stmts, Var v) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign as && as.var().equals(v)
                    || s instanceof Stmt.Atomic at && v.equals(at.result())) {
                return true;
            }
            if (s instanceof Stmt.If i && (assigns(i.then(), v) || assigns(i.otherwise(), v))
                    || s instanceof Stmt.While w && assigns(w.body(), v)) {
                return true;
            }
            if (s instanceof Stmt.For f && (f.index().equals(v) || f.stride() != null && f.stride().var().equals(v)
                    || assigns(f.body(), v))) {
                return true;
            }
        }
        return false;
    }
}
