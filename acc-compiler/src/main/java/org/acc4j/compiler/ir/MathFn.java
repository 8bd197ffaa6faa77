package org.acc4j.compiler.ir;

/**
 * The {@code java.lang.Math} methods a kernel may call, and the bit functions of {@code Integer}, {@code Long},
 * {@code Float} and {@code Double} that the IR needs as operations. Those marked exact have one correct result that
 * PTX computes directly; the others are within 1 ulp as Math's contract allows, computed by the routines of
 * {@code ptx-templates}.
 */
public enum MathFn {
    SQRT("sqrt", 1, true),
    ABS("abs", 1, true),
    MIN("min", 2, true),
    MAX("max", 2, true),
    FMA("fma", 3, true),
    FLOOR("floor", 1, true),
    CEIL("ceil", 1, true),
    RINT("rint", 1, true),
    EXP("exp", 1, false),
    LOG("log", 1, false),
    POW("pow", 2, false),
    SIN("sin", 1, false),
    COS("cos", 1, false),
    TAN("tan", 1, false),
    TANH("tanh", 1, false),
    ATAN2("atan2", 2, false),
    ATAN("atan", 1, false),
    ASIN("asin", 1, false),
    ACOS("acos", 1, false),
    HYPOT("hypot", 2, false),
    LOG10("log10", 1, false),
    LOG1P("log1p", 1, false),
    EXPM1("expm1", 1, false),
    SINH("sinh", 1, false),
    COSH("cosh", 1, false),
    CBRT("cbrt", 1, false),
    // bit manipulation of integers and floating-point values: exact, the operand's type may differ from the result's
    BIT_COUNT("bitCount", 1, true),
    LEADING_ZEROS("numberOfLeadingZeros", 1, true),
    TRAILING_ZEROS("numberOfTrailingZeros", 1, true),
    REVERSE("reverse", 1, true),
    RAW_BITS("rawBits", 1, true),
    FROM_BITS("fromBits", 1, true);

    private final String javaName;
    private final int arity;
    private final boolean exact;

    MathFn(String javaName, int arity, boolean exact) {
        this.javaName = javaName;
        this.arity = arity;
        this.exact = exact;
    }

    public String javaName() {
        return javaName;
    }

    public int arity() {
        return arity;
    }

    /** Whether Java defines the result exactly (so StrictMath and Math agree). */
    public boolean exact() {
        return exact;
    }

    /**
     * Whether this is one of the bit functions ({@code Integer.bitCount}, {@code Double.doubleToRawLongBits}, ...),
     * whose operand is an integer or a float of the result's width or a different type.
     */
    public boolean bits() {
        return ordinal() >= BIT_COUNT.ordinal();
    }

    /** The {@code java.lang.Math} function named {@code name}, or null. */
    public static MathFn named(String name) {
        for (MathFn f : values()) {
            if (!f.bits() && f.javaName.equals(name)) {
                return f;
            }
        }
        return null;
    }
}
