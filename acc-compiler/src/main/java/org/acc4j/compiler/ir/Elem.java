package org.acc4j.compiler.ir;

/**
 * The element type of an array as it is stored: Java's eight primitive types. An element loads as its
 * computational {@link #type()}: {@code boolean}, {@code byte}, {@code short} and {@code char} widen to
 * {@link Type#I32} ({@code byte} and {@code short} sign-extend, {@code char} and {@code boolean} zero-extend,
 * as {@code baload}, {@code saload} and {@code caload} do), and a store narrows the computed value as Java's
 * {@code bastore}, {@code sastore} and {@code castore} do: to the low 8 or 16 bits, and to its lowest bit for
 * a {@code boolean[]} (whose elements are the bytes 0 and 1).
 */
public enum Elem {
    BOOLEAN('Z', "boolean", Type.I32, 1, "u8", "u8"),
    BYTE('B', "byte", Type.I32, 1, "s8", "u8"),
    SHORT('S', "short", Type.I32, 2, "s16", "u16"),
    CHAR('C', "char", Type.I32, 2, "u16", "u16"),
    INT('I', "int", Type.I32, 4, "b32", "b32"),
    LONG('J', "long", Type.I64, 8, "b64", "b64"),
    FLOAT('F', "float", Type.F32, 4, "f32", "f32"),
    DOUBLE('D', "double", Type.F64, 8, "f64", "f64");

    private final char descriptor;
    private final String javaName;
    private final Type type;
    private final int bytes;
    private final String ptxLoad;
    private final String ptxStore;

    Elem(char descriptor, String javaName, Type type, int bytes, String ptxLoad, String ptxStore) {
        this.descriptor = descriptor;
        this.javaName = javaName;
        this.type = type;
        this.bytes = bytes;
        this.ptxLoad = ptxLoad;
        this.ptxStore = ptxStore;
    }

    /** The type an element computes as once loaded. */
    public Type type() {
        return type;
    }

    /** Bytes per element on the device (a {@code boolean} is one byte, 0 or 1). */
    public int bytes() {
        return bytes;
    }

    public String javaName() {
        return javaName;
    }

    /** The field descriptor of the element type ({@code B} for byte). */
    public char descriptor() {
        return descriptor;
    }

    /** The PTX type of a load, whose signedness gives Java's widening into a 32-bit register: s8, u16, b32, ... */
    public String ptxLoad() {
        return ptxLoad;
    }

    /** The PTX type of a store, which keeps the low bits of the register: u8, u16, b32, ... */
    public String ptxStore() {
        return ptxStore;
    }

    /** Whether the element is narrower than its computational type (boolean, byte, short, char). */
    public boolean isNarrow() {
        return bytes < type.bytes();
    }

    /** The element type of a descriptor of an array of one or two dimensions ({@code [B}, {@code [[Z}), or null. */
    public static Elem ofArray(String desc) {
        int dims = arrayDims(desc);
        return dims == 0 ? null : of(desc.charAt(dims));
    }

    /** 1 for {@code [B}, 2 for {@code [[B} (of any primitive type), else 0. */
    public static int arrayDims(String desc) {
        int dims = 0;
        while (dims < desc.length() && desc.charAt(dims) == '[') {
            dims++;
        }
        return (dims == 1 || dims == 2) && desc.length() == dims + 1 && of(desc.charAt(dims)) != null ? dims : 0;
    }

    /** The element type a primitive field of descriptor {@code desc} ({@code D}, {@code Z}) stores as, or null. */
    public static Elem ofField(String desc) {
        return desc.length() == 1 ? of(desc.charAt(0)) : null;
    }

    private static Elem of(char descriptor) {
        for (Elem e : values()) {
            if (e.descriptor == descriptor) {
                return e;
            }
        }
        return null;
    }
}
