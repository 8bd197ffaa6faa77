package org.acc4j.compiler.ir;

/**
 * A place in a kernel that can raise a Java exception: an array access out of bounds or an integer division
 * by zero. The kernel records the first failing site's code (its position in the plan's list plus one) and a
 * detail (the bad index); the runtime turns that into the exception Java would throw.
 */
public record ErrorSite(Kind kind, String array, int line) {
    public enum Kind { INDEX_OUT_OF_BOUNDS, DIVISION_BY_ZERO }
}
