package org.acc4j.compiler.ir;

/**
 * A scalar that a parallel loop nest accumulates into: every update in the nest is {@code var = var op e}
 * (or {@code Math.max(var, e)}, {@code Math.min(var, e)}) with {@code e} free of {@code var}, and nothing else
 * in the nest reads it. Each thread accumulates from the identity; the grid's values are combined on the
 * device; the host then combines the result with the variable's value before the loop.
 *
 * @param var the reduced local
 * @param op the operator
 * @param line the source line of its first update
 */
public record Reduction(Var var, Op op, int line) {
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

    public Reduction {
        if (var.type().isFloat() && (op == Op.AND || op == Op.OR || op == Op.XOR)) {
            throw new IllegalArgumentException(op + " on " + var.type());
        }
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

    /** {@code init op result} with Java's semantics, on the host, for the values the evaluator holds. */
    public Object combine(Object init, Object result) {
        return switch (var.type()) {
            case I32 -> {
                int a = (Integer) init;
                int b = (Integer) result;
                yield switch (op) {
                    case ADD -> a + b;
                    case MUL -> a * b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                };
            }
            case I64 -> {
                long a = (Long) init;
                long b = (Long) result;
                yield switch (op) {
                    case ADD -> a + b;
                    case MUL -> a * b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                };
            }
            case F32 -> {
                float a = (Float) init;
                float b = (Float) result;
                yield switch (op) {
                    case ADD -> a + b;
                    case MUL -> a * b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                    default -> throw new IllegalStateException(op + " on float");
                };
            }
            case F64 -> {
                double a = (Double) init;
                double b = (Double) result;
                yield switch (op) {
                    case ADD -> a + b;
                    case MUL -> a * b;
                    case MAX -> Math.max(a, b);
                    case MIN -> Math.min(a, b);
                    default -> throw new IllegalStateException(op + " on double");
                };
            }
            case PRED -> throw new IllegalStateException("a reduction over a predicate");
        };
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
