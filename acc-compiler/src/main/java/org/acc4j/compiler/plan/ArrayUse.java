package org.acc4j.compiler.plan;

/**
 * An array a compiled method's kernels or data clauses use, bound once per call: its position in the call's array
 * list, its name, where the call finds it, its rank (1, or 2 for a {@code T[][]} of rows) and whether a kernel writes
 * it.
 */
public record ArrayUse(int index, String name, ValueSource source, int dims, boolean written) {
}
