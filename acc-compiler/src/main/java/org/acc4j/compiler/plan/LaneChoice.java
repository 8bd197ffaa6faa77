package org.acc4j.compiler.plan;

/** The lanes per row of one launch of a row-group kernel, and why (for the report). */
public record LaneChoice(int lanes, String why) {
    /** log2 of the lanes, the kernel's parameter. */
    public int log2() {
        return Integer.numberOfTrailingZeros(lanes);
    }
}
