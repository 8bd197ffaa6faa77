package org.acc4j.compiler.ir;

/**
 * A scalar that a parallel loop nest accumulates into: every update in the nest is {@code var = var op e}
 * (or {@code Math.max(var, e)}, {@code Math.min(var, e)}, or for MAX and MIN an {@code if} that replaces
 * {@code var} by {@code e}, see {@link Form}) with {@code e} free of {@code var}, and nothing else in the nest
 * reads it. Each thread accumulates from the identity; the grid's values are combined on the device; the host
 * then combines the result with the variable's value before the loop.
 *
 * @param var the reduced local
 * @param op the operator
 * @param form how the nest writes the update, which decides how the host combines the value before the loop
 * @param line the source line of its first update
 */
public record Reduction(Var var, Op op, Form form, int line) {
    /** Reductions one loop nest may have. */
    public static final int MAX_PER_REGION = 64;

    /** The operators of OpenACC's {@code reduction} clause ({@code &&} and {@code ||} are AND and OR of 0/1). */
    public enum Op {
        ADD("+"), MUL("*"), MAX("max"), MIN("min"), AND("&"), OR("|"), XOR("^");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }

        /** The operator named in a {@code reduction} clause ({@code +}, {@code *}, {@code max}, {@code &&} ...), or null. */
        public static Op named(String s) {
            return switch (s) {
                case "+" -> ADD;
                case "*" -> MUL;
                case "max" -> MAX;
                case "min" -> MIN;
                case "&", "&&" -> AND;
                case "|", "||" -> OR;
                case "^" -> XOR;
                default -> null;
            };
        }
    }

    /**
     * How the nest updates the variable. {@code OPERATOR}: with the operator itself ({@code s += x},
     * {@code m = Math.max(m, x)}). For MAX and MIN only, Java's {@code if} that replaces the variable by a value
     * that compares beyond it ({@code if (x > m) m = x;}, {@code if (x < m) m = x;} for MIN, or the same as
     * {@code m = x > m ? x : m}): {@code IF_STRICT} with {@code >} or {@code <}, which keeps the first of equal
     * values, {@code IF_OR_EQUAL} with {@code >=} or {@code <=}, which takes the last. A comparison with NaN is
     * false, so a NaN never replaces the variable and a NaN variable is never replaced.
     *
     * <p>Each thread runs the {@code if} on its private value, which starts at the identity, so it never holds a
     * NaN; the device then combines as {@link Math#max}/{@link Math#min} do, which on values that are not NaN
     * differs from the {@code if} only in which of {@code -0.0} and {@code +0.0} it keeps. The compiler accepts
     * the floating-point forms only where the replacing value is never {@code -0.0} (so every zero is
     * {@code +0.0}), which makes the device's result the loop's, bit for bit; the value before the loop is then
     * combined on the host by the {@code if} itself, as the loop's first value.
     */
    public enum Form {
        OPERATOR, IF_STRICT, IF_OR_EQUAL
    }

    public Reduction {
        if (var.type().isFloat() && (op == Op.AND || op == Op.OR || op == Op.XOR)) {
            throw new IllegalArgumentException(op + " on " + var.type());
        }
        if (form != Form.OPERATOR && op != Op.MAX && op != Op.MIN) {
            throw new IllegalArgumentException(form + " for " + op);
        }
    }

    /** A reduction updated by its operator. */
    public Reduction(Var var, Op op, int line) {
        this(var, op, Form.OPERATOR, line);
    }

    public Type type() {
        return var.type();
    }

    /** The {@code ptx-templates} routine that combines this reduction's values over the grid. */
    public org.acc4j.templates.Reductions.Routine routine() {
        return new org.acc4j.templates.Reductions.Routine(org.acc4j.templates.Reductions.Op.valueOf(op.name()),
                org.acc4j.templates.Reductions.Kind.valueOf(var.type().name()));
    }

    /** The operator's identity as raw bits: each thread's starting value, and the result of a launch of no threads. */
    public long identityBits() {
        var r = routine();
        return org.acc4j.templates.Reductions.identityBits(r.op(), r.kind());
    }

    /**
     * {@code init op result} with Java's semantics, on the host, for the values the evaluator holds; for the
     * {@code if} forms, the {@code if} run on {@code init} with {@code result} as the value that may replace it.
     */
    public Object combine(Object init, Object result) {
        if (form != Form.OPERATOR) {
            return replaces(init, result) ? result : init;
        }
        // an int result is the low half of the long one; a float result is the double one rounded, which is the float
        // operation's own result (a product of floats is exact in a double, and rounding a sum to 53 bits, then 24,
        // rounds as once to 24: 53 >= 2 * 24 + 2)
        return switch (var.type()) {
            case I32 -> (int) integral((Integer) init, (Integer) result);
            case I64 -> integral((Long) init, (Long) result);
            case F32 -> (float) floating((Float) init, (Float) result, "float");
            case F64 -> floating((Double) init, (Double) result, "double");
            case PRED -> throw new IllegalStateException("a reduction over a predicate");
        };
    }

    /** {@code a op b} on longs as the device combines them, which wraps as Java does. */
    private long integral(long a, long b) {
        return org.acc4j.templates.reduce.ReduceOrder.apply(routine().op(), org.acc4j.templates.Reductions.Kind.I64, a,
                b);
    }

    private double floating(double a, double b, String type) {
        return switch (op) {
            case ADD -> a + b;
            case MUL -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            default -> throw new IllegalStateException(op + " on " + type);
        };
    }

    /** Whether {@code x} replaces {@code m} in this {@code if} form: Java's comparison, false with a NaN. */
    private boolean replaces(Object m, Object x) {
        boolean max = op == Op.MAX;
        boolean strict = form == Form.IF_STRICT;
        return switch (var.type()) {
            case I32 -> compare((Integer) x, (Integer) m, max, strict);
            case I64 -> compare((Long) x, (Long) m, max, strict);
            case F32 -> compare((Float) x, (Float) m, max, strict);
            case F64 -> compare((Double) x, (Double) m, max, strict);
            case PRED -> throw new IllegalStateException("a reduction over a predicate");
        };
    }

    private static boolean compare(long x, long m, boolean max, boolean strict) {
        return max ? (strict ? x > m : x >= m) : (strict ? x < m : x <= m);
    }

    private static boolean compare(double x, double m, boolean max, boolean strict) {
        return max ? (strict ? x > m : x >= m) : (strict ? x < m : x <= m);
    }

    /** A value of the variable's type from raw bits (as the device writes it). */
    public Object fromBits(long bits) {
        return switch (var.type()) {
            case I32 -> (int) bits;
            case I64 -> bits;
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
            case PRED -> throw new IllegalStateException("predicate");
        };
    }

    /** The raw bits of a value of the variable's type. */
    public long toBits(Object value) {
        return switch (var.type()) {
            case I32 -> (Integer) value & 0xFFFFFFFFL;
            case I64 -> (Long) value;
            case F32 -> Float.floatToRawIntBits((Float) value) & 0xFFFFFFFFL;
            case F64 -> Double.doubleToRawLongBits((Double) value);
            case PRED -> throw new IllegalStateException("predicate");
        };
    }

    @Override
    public String toString() {
        return "reduction(" + op.symbol() + ":" + var.name() + ")";
    }
}
