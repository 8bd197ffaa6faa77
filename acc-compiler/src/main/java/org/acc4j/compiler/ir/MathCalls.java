package org.acc4j.compiler.ir;

/** {@link MathFn} on the host with Java's results, for the evaluator and the kernel interpreter. */
final class MathCalls {
    private MathCalls() {
    }

    static Object call(MathFn fn, Type t, Object[] a) {
        if (t == Type.F64) {
            double x = (Double) a[0];
            return switch (fn) {
                case SQRT -> Math.sqrt(x);
                case ABS -> Math.abs(x);
                case MIN -> Math.min(x, (Double) a[1]);
                case MAX -> Math.max(x, (Double) a[1]);
                case FMA -> Math.fma(x, (Double) a[1], (Double) a[2]);
                case FLOOR -> Math.floor(x);
                case CEIL -> Math.ceil(x);
                case RINT -> Math.rint(x);
                case EXP -> Math.exp(x);
                case LOG -> Math.log(x);
                case POW -> Math.pow(x, (Double) a[1]);
                case SIN -> Math.sin(x);
                case COS -> Math.cos(x);
                case TAN -> Math.tan(x);
                case TANH -> Math.tanh(x);
            };
        }
        if (t == Type.F32) {
            float x = (Float) a[0];
            return switch (fn) {
                case ABS -> Math.abs(x);
                case MIN -> Math.min(x, (Float) a[1]);
                case MAX -> Math.max(x, (Float) a[1]);
                case FMA -> Math.fma(x, (Float) a[1], (Float) a[2]);
                default -> throw new IllegalArgumentException("Math." + fn.javaName() + "(float)");
            };
        }
        if (t == Type.I32) {
            int x = (Integer) a[0];
            return switch (fn) {
                case ABS -> Math.abs(x);
                case MIN -> Math.min(x, (Integer) a[1]);
                case MAX -> Math.max(x, (Integer) a[1]);
                default -> throw new IllegalArgumentException("Math." + fn.javaName() + "(int)");
            };
        }
        long x = (Long) a[0];
        return switch (fn) {
            case ABS -> Math.abs(x);
            case MIN -> Math.min(x, (Long) a[1]);
            case MAX -> Math.max(x, (Long) a[1]);
            default -> throw new IllegalArgumentException("Math." + fn.javaName() + "(long)");
        };
    }
}
