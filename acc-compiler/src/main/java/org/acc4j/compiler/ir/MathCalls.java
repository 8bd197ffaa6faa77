package org.acc4j.compiler.ir;

import org.acc4j.templates.MathLibrary;
import org.acc4j.templates.math.Mirrors;

/**
 * {@link MathFn} on the host, for the evaluator and the kernel interpreter, with the device's results: Java's
 * exact functions directly, and the others through {@code Mirrors}, the bit-exact mirrors of the PTX routines
 * (within 1 ulp as {@code java.lang.Math} allows, but not always the bits {@code Math} gives on this JVM).
 */
final class MathCalls {
    private MathCalls() {
    }

    static Object call(MathFn fn, Type t, Object[] a) {
        if (fn.bits()) {
            return bits(fn, a[0]);
        }
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
                // the device's routines, through their mirrors
                default -> Mirrors.mirror(new MathLibrary.Routine(MathLibrary.Function.valueOf(fn.name()), true), x,
                        a.length > 1 ? (Double) a[1] : 0.0);
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

    /** A bit function of an Integer, Long, Float or Double operand, as the platform computes it. */
    private static Object bits(MathFn fn, Object x) {
        if (x instanceof Integer i) {
            return switch (fn) {
                case BIT_COUNT -> Integer.bitCount(i);
                case LEADING_ZEROS -> Integer.numberOfLeadingZeros(i);
                case TRAILING_ZEROS -> Integer.numberOfTrailingZeros(i);
                case REVERSE -> Integer.reverse(i);
                case FROM_BITS -> Float.intBitsToFloat(i);
                default -> throw new IllegalArgumentException(fn + "(int)");
            };
        }
        if (x instanceof Long l) {
            return switch (fn) {
                case BIT_COUNT -> Long.bitCount(l);
                case LEADING_ZEROS -> Long.numberOfLeadingZeros(l);
                case TRAILING_ZEROS -> Long.numberOfTrailingZeros(l);
                case REVERSE -> Long.reverse(l);
                case FROM_BITS -> Double.longBitsToDouble(l);
                default -> throw new IllegalArgumentException(fn + "(long)");
            };
        }
        if (fn == MathFn.RAW_BITS && x instanceof Float f) {
            return Float.floatToRawIntBits(f);
        }
        if (fn == MathFn.RAW_BITS && x instanceof Double d) {
            return Double.doubleToRawLongBits(d);
        }
        throw new IllegalArgumentException(fn + "(" + x.getClass().getSimpleName() + ")");
    }
}
