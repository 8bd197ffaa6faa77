package org.acc4j.compiler.ir;

/**
 * The scalar type lattice of the IR: Java's computational types plus a predicate.
 * {@code boolean}, {@code byte}, {@code short} and {@code char} locals and array elements compute as {@link #I32},
 * as in the JVM; {@link Elem} is how an array stores its elements.
 */
public enum Type {
    I32("s32", "b32", 4, "int"),
    I64("s64", "b64", 8, "long"),
    F32("f32", "f32", 4, "float"),
    F64("f64", "f64", 8, "double"),
    PRED("pred", "pred", 1, "boolean");

    private final String ptx;
    private final String bits;
    private final int bytes;
    private final String javaName;

    Type(String ptx, String bits, int bytes, String javaName) {
        this.ptx = ptx;
        this.bits = bits;
        this.bytes = bytes;
        this.javaName = javaName;
    }

    /** The PTX arithmetic suffix: s32, s64, f32, f64 or pred. */
    public String ptx() {
        return ptx;
    }

    /** The PTX untyped-bits suffix for moves and loads: b32, b64, f32, f64 or pred. */
    public String bits() {
        return bits;
    }

    public int bytes() {
        return bytes;
    }

    public String javaName() {
        return javaName;
    }

    public boolean isFloat() {
        return this == F32 || this == F64;
    }

    public boolean isWide() {
        return this == I64 || this == F64;
    }

    /** The computational type of a field or parameter descriptor, or null for references. */
    public static Type ofDescriptor(String desc) {
        return switch (desc) {
            case "I", "S", "B", "C", "Z" -> I32;
            case "J" -> I64;
            case "F" -> F32;
            case "D" -> F64;
            default -> null;
        };
    }
}
