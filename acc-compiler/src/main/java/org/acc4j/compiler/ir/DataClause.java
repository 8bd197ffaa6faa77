package org.acc4j.compiler.ir;

/**
 * A data clause for one array of a region: explicit (from {@code @Data}) or implicit (from how the method uses
 * the array).
 *
 * @param coverage for an implicit {@code COPYOUT}: the region whose loop writes every element it covers, with
 *     the offset of the unit-stride subscript ({@code a[i + offset]}); the runtime checks before launch that
 *     the loop covers the whole array and otherwise uses {@code COPY}, so unwritten elements keep their values.
 *     Null otherwise.
 */
public record DataClause(ArrayRef array, Kind kind, boolean explicit, Coverage coverage) {
    /** OpenACC's data clauses. */
    public enum Kind { COPYIN, COPYOUT, COPY, CREATE, PRESENT }

    /**
     * Where a write-only array is written: one store {@code a[i + offset]} per iteration of a unit-step loop, or for
     * a {@code T[][]} one store {@code a[i + offset][j + columns.offset]} per iteration of a unit-step loop over
     * {@code j} in it whose bounds the outer loop does not change ({@code columns}, else null): the rows and columns
     * written are then a rectangle the host computes before the launch.
     */
    public record Coverage(int region, Expr offset, Columns columns) {
        public Coverage(int region, Expr offset) {
            this(region, offset, null);
        }
    }

    /** The inner loop of a two-dimensional coverage, {@code for (j = lower; j cond bound; j++)}, and the offset. */
    public record Columns(Expr lower, Cond cond, Expr bound, Expr offset) {
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + "(" + array.name() + ")" + (explicit ? "" : " implicit");
    }
}
