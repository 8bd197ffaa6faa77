package org.acc4j.compiler.ir;

/**
 * A loop that is a prefix scan: {@code s = s op a[i]; b[i] = s;} (inclusive) or {@code b[i] = s; s = s op a[i];}
 * (exclusive) over {@code i} from its lower bound up by 1, found by {@link org.acc4j.compiler.pass.Scans}. It runs as
 * the one-pass device scan of {@code ptx-templates} ({@link org.acc4j.templates.Scans}).
 *
 * @param var       the running value {@code s}; its value before the loop is the scan's start
 * @param op        the operator
 * @param inclusive whether {@code b[i]} includes {@code a[i]}
 * @param input     the load {@code a[i]}
 * @param output    the store {@code b[i] = s}
 * @param line      the line of the update of {@code s}
 */
public record Scan(Var var, Reduction.Op op, boolean inclusive, Expr.Load input, Stmt.Store output, int line) {
    /** The template routine that runs it. */
    public org.acc4j.templates.Scans.Routine routine() {
        var r = new Reduction(var, op, line).routine();
        return new org.acc4j.templates.Scans.Routine(r.op(), r.kind(), inclusive);
    }

    /** As the report says it, e.g. {@code scan: inclusive + over a into b}. */
    @Override
    public String toString() {
        return "scan: " + (inclusive ? "inclusive " : "exclusive ") + op.symbol() + " over " + input.array().name()
                + " into " + output.array().name();
    }
}
