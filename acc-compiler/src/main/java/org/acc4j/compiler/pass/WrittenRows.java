package org.acc4j.compiler.pass;

import java.util.List;
import java.util.Map;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;

/**
 * Which rows of a two-dimensional array a call's kernel may write, told on the host before it runs: the least and
 * greatest value of the row subscripts of its stores ({@link Bounds#writtenRows}), for the host's values at the
 * kernel's loop. A row outside them is only read, so it may also be bound under another name (LINPACK's
 * {@code col_k = a[k]} read while rows {@code k+1..n-1} of {@code a} are updated). Known only for a method of one
 * kernel whose loop is a statement of the method's body (a launch site's nest), whose statements before the loop
 * the host can evaluate. Immutable.
 */
public final class WrittenRows {
    private final Region region;
    /** The statements of the method before the kernel's loop, or null when the rows are not known. */
    private final List<Stmt> before;
    private final Map<ArrayRef, List<RangeCheck.Bound>> rows;

    /** For a method read as {@code body} whose kernels' regions are {@code regions}. */
    public WrittenRows(MethodBody body, List<Region> regions) {
        int at = -1;
        if (regions.size() == 1) {
            for (int i = 0; i < body.body().size(); i++) {
                if (body.body().get(i) == regions.get(0).loop()) {
                    at = i;
                }
            }
        }
        this.region = at < 0 ? null : regions.get(0);
        this.before = at < 0 ? null : List.copyOf(body.body().subList(0, at));
        this.rows = at < 0 ? Map.of() : Bounds.writtenRows(region);
    }

    /**
     * The least and greatest row of {@code array} the kernel may write, with {@code callStart} holding the host's
     * values at the call's start (the statements before the loop are run on it); null when that cannot be told, an
     * empty range ({@code {1, 0}}) when its loops run no iteration.
     */
    public long[] of(ArrayRef array, Evaluator callStart) {
        List<RangeCheck.Bound> bounds = rows.get(array);
        if (bounds == null) {
            return null;
        }
        try {
            callStart.run(before);
            callStart.run(region.devicePrologue());
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (RangeCheck.Bound b : bounds) {
                long[] r = RangeCheck.range(b, callStart);
                if (r != null) {
                    lo = Math.min(lo, r[0]);
                    hi = Math.max(hi, r[1]);
                }
            }
            return lo > hi ? new long[] {1, 0} : new long[] {lo, hi};
        } catch (Evaluator.NotEvaluable | ArithmeticException | ClassCastException e) {
            return null;
        }
    }
}
