package org.acc4j.compiler.ir;

import java.util.List;
import java.util.function.Function;

/**
 * The bounds check of one array access, hoisted out of the kernel: the access's subscripts are linear in the
 * loop indices, {@code Σ c_k * i_k + rest} with invariant coefficients, so their least and greatest values over
 * the whole iteration space are at the corners of the loops' ranges and cost O(loops) to compute on the host.
 * When every hoisted access of a kernel is proven in bounds for a call's values, the runtime launches the
 * kernel's variant without those checks; otherwise the variant that checks every access, which raises Java's
 * exception at the first bad index.
 *
 * <p>The proof is sound under Java's wrapping arithmetic: the exact sum computed from the coefficients' Java
 * values is congruent to the subscript Java computes, modulo 2^32, and a value proven in {@code [0, length)}
 * is the only {@code int} of its class. An access inside an {@code if} is proven over all iterations, a
 * superset of those that run it.
 *
 * @param access the access checked: the {@link Expr.Load#access() id} of its load or store
 * @param row the row subscript of a two-dimensional array's element, or null
 * @param index the subscript (the column of a two-dimensional array)
 */
public record RangeCheck(int access, ArrayRef array, Bound row, Bound index, int line) {
    /** A loop whose index the subscript uses, with its invariant coefficient. */
    public record Term(Stmt.For loop, Expr coefficient) {
    }

    /** {@code Σ terms + rest}. */
    public record Bound(List<Term> terms, Expr rest) {
        public Bound {
            terms = List.copyOf(terms);
        }
    }

    /**
     * Whether the access stays in bounds for every iteration, with the values {@code ev} gives (the host's, at
     * the region's loop) and the arrays {@code arrays} gives; false when it may not, or cannot be told.
     */
    public boolean holds(Evaluator ev, Function<ArrayRef, Object> arrays) {
        return holds(ev, arrays, NO_ROW_LENGTHS);
    }

    /**
     * What the caller knows of a two-dimensional array's rows without looking at them: a length every row has at
     * least (the shortest row's), or -1 when it does not know (the rows are then looked at one by one).
     */
    @FunctionalInterface
    public interface RowLengths {
        int least(Object rank2);
    }

    /** Knows nothing: every row is looked at. */
    public static final RowLengths NO_ROW_LENGTHS = rows -> -1;

    /**
     * {@link #holds(Evaluator, Function)}, taking the shortest row's length from {@code rowLengths} where it knows it
     * (a present array whose rows the runtime has checked are the device's) instead of reading each row the access
     * may reach. The shortest of all rows stands for the shortest of those reached: the proof may fail where reading
     * them would succeed (the kernel then checks its accesses), never the reverse.
     */
    public boolean holds(Evaluator ev, Function<ArrayRef, Object> arrays, RowLengths rowLengths) {
        try {
            Object a = arrays.apply(array);
            if (a == null) {
                return false;
            }
            long[] r = row == null ? null : range(row, ev);
            long[] c = range(index, ev);
            if ((row != null && r == null) || c == null) {
                return true; // a loop around the access runs no iteration
            }
            int length;
            if (row == null) {
                length = java.lang.reflect.Array.getLength(a);
            } else {
                Object[] rows = (Object[]) a;
                if (r[0] < 0 || r[1] >= rows.length) {
                    return false;
                }
                length = rowLengths.least(a);
                if (length < 0) {
                    length = leastRowLength(rows, (int) r[0], (int) r[1]);
                }
            }
            return c[0] >= 0 && c[1] < length;
        } catch (Evaluator.NotEvaluable | ArithmeticException | ClassCastException e) {
            return false;
        }
    }

    /** The least length of rows {@code from..to}, -1 when one of them is null. */
    private static int leastRowLength(Object[] rows, int from, int to) {
        int length = Integer.MAX_VALUE;
        for (int k = from; k <= to; k++) {
            Object rw = rows[k];
            if (rw == null) {
                return -1;
            }
            length = Math.min(length, java.lang.reflect.Array.getLength(rw));
        }
        return length;
    }

    /**
     * The least and greatest value of {@code b} over its loops' iterations for the values {@code ev} gives, or null
     * when a loop of its terms runs no iteration; throws {@link Evaluator.NotEvaluable} or {@link ArithmeticException}
     * when it cannot be told.
     */
    public static long[] range(Bound b, Evaluator ev) {
        long rest = ev.evalLong(b.rest());
        long lo = rest;
        long hi = rest;
        for (Term t : b.terms()) {
            Stmt.For f = t.loop();
            long first = ev.evalLong(f.lower());
            long trip = Evaluator.tripCount(first, f.cond(), ev.evalLong(f.bound()), f.step());
            if (trip <= 0) {
                return null;
            }
            long last = Math.addExact(first, Math.multiplyExact(trip - 1, f.step()));
            long c = ev.evalLong(t.coefficient());
            long x = Math.multiplyExact(c, first);
            long y = Math.multiplyExact(c, last);
            lo = Math.addExact(lo, Math.min(x, y));
            hi = Math.addExact(hi, Math.max(x, y));
        }
        return new long[] {lo, hi};
    }
}
