package org.acc4j.compiler.ir;

/**
 * The scalar type lattice of the IR: Java's computational types plus a predicate.
 * {@code boolean}, {@code byte}, {@code short} and {@code char} locals compute as {@link #I32}, as in the JVM.
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

    /** The element type of a one-dimensional primitive array descriptor ("[D" gives F64), or null. */
    /** 1 for {@code [D}, 2 for {@code [[D} (of int, long, float, double), else 0. */
    public static int arrayDims(String desc) {
        if (ofArrayDescriptor(desc) != null) {
            return 1;
        }
        return desc.startsWith("[[") && ofArrayDescriptor(desc.substring(1)) != null ? 2 : 0;
    }

    /** The element type of a one- or two-dimensional array of int, long, float or double, else null. */
    public static Type ofArrayElement(String desc) {
        int dims = arrayDims(desc);
        return dims == 0 ? null : ofArrayDescriptor(desc.substring(dims - 1));
    }

    public static Type ofArrayDescriptor(String desc) {
        return switch (desc) {
            case "[I" -> I32;
            case "[J" -> I64;
            case "[F" -> F32;
            case "[D" -> F64;
            default -> null;
        };
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
