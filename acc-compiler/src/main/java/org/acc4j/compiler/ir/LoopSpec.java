package org.acc4j.compiler.ir;

/**
 * What the user wrote in {@code @Loop} on a loop's index (or {@link #NONE}). Each level is
 * {@link #OFF}, {@link #AUTO} or a positive size, as in the annotation.
 */
public record LoopSpec(int gang, int worker, int vector, boolean seq, boolean independent, int collapse,
                       String reduction, boolean annotated, Increments increments) {
    /** The {@code increments} clause: how the loop's indirect increments run in parallel (see {@code Loop.Increments}). */
    public enum Increments { NONE, ATOMIC, COLOUR, AUTO }

    public static final int OFF = -1;
    public static final int AUTO = 0;
    public static final LoopSpec NONE = new LoopSpec(OFF, OFF, OFF, false, false, 1, "", false);

    /** Without an {@code increments} clause. */
    public LoopSpec(int gang, int worker, int vector, boolean seq, boolean independent, int collapse,
                    String reduction, boolean annotated) {
        this(gang, worker, vector, seq, independent, collapse, reduction, annotated, Increments.NONE);
    }

    public LoopSpec(int gang, int worker, int vector, boolean seq, boolean independent, int collapse, boolean annotated) {
        this(gang, worker, vector, seq, independent, collapse, "", annotated);
    }

    /** Whether the loop asks for atomic increments ({@code increments = ATOMIC}). */
    public boolean atomicIncrements() {
        return increments == Increments.ATOMIC;
    }

    /** The items of the {@code reduction} clause ({@code "+:s"}), in order; empty without one. */
    public java.util.List<String> reductionItems() {
        return reduction.isBlank() ? java.util.List.of()
                : java.util.Arrays.stream(reduction.split(",")).map(String::trim).toList();
    }

    /** Whether the user named a parallel level, which we take as an assertion that the loop is parallel. */
    public boolean hasParallelLevel() {
        return gang != OFF || worker != OFF || vector != OFF;
    }

    @Override
    public String toString() {
        if (!annotated) {
            return "(no @Loop)";
        }
        StringBuilder b = new StringBuilder("@Loop(");
        String sep = "";
        if (gang != OFF) { b.append(sep).append("gang").append(gang > 0 ? "=" + gang : ""); sep = ", "; }
        if (worker != OFF) { b.append(sep).append("worker").append(worker > 0 ? "=" + worker : ""); sep = ", "; }
        if (vector != OFF) { b.append(sep).append("vector").append(vector > 0 ? "=" + vector : ""); sep = ", "; }
        if (seq) { b.append(sep).append("seq"); sep = ", "; }
        if (independent) { b.append(sep).append("independent"); sep = ", "; }
        if (collapse != 1) { b.append(sep).append("collapse=").append(collapse); sep = ", "; }
        if (!reduction.isBlank()) { b.append(sep).append("reduction=").append(reduction); sep = ", "; }
        if (increments != Increments.NONE) { b.append(sep).append("increments=").append(increments); }
        return b.append(')').toString();
    }
}
