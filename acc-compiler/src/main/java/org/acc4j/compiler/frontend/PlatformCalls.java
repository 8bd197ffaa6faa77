package org.acc4j.compiler.frontend;

import java.util.List;
import java.util.function.UnaryOperator;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.MathFn;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.objectweb.asm.tree.MethodInsnNode;

/**
 * Static methods of {@code java.lang.Math}, {@code StrictMath}, {@code Integer}, {@code Long}, {@code Float} and
 * {@code Double} whose results Java defines exactly, written as IR with the same results: rounding
 * ({@code Math.round}, {@code signum}, {@code copySign}, {@code toRadians}, {@code toDegrees}, {@code getExponent}),
 * bit manipulation ({@code bitCount}, {@code numberOfLeadingZeros}, {@code numberOfTrailingZeros}, {@code reverse},
 * {@code rotateLeft}, {@code rotateRight}, {@code highestOneBit}, {@code lowestOneBit}, {@code signum}), the bits of
 * floating-point values ({@code doubleToRawLongBits}, {@code doubleToLongBits}, {@code longBitsToDouble} and
 * {@code Float}'s), comparisons ({@code compare}) and the boxes' {@code min}, {@code max} and {@code sum}.
 *
 * <p>An operand used more than once is first held in a temporary (through {@code temp}), so that it is computed
 * once, in Java's order.
 */
final class PlatformCalls {
    private static final double DEGREES_TO_RADIANS = 0.017453292519943295;
    private static final double RADIANS_TO_DEGREES = 57.29577951308232;

    private PlatformCalls() {
    }

    /**
     * The IR for a call of {@code m} with {@code operands} (first argument first), or null when {@code m} is not one
     * of these methods. {@code temp} holds a value in a local and returns the local.
     */
    static Expr lower(MethodInsnNode m, List<Expr> operands, UnaryOperator<Expr> temp) {
        String owner = m.owner;
        String key = m.name + m.desc;
        boolean math = owner.equals("java/lang/Math") || owner.equals("java/lang/StrictMath");
        if (math) {
            return math(key, owner.equals("java/lang/StrictMath"), operands, temp);
        }
        return switch (owner) {
            case "java/lang/Integer" -> integral(key, false, operands, temp);
            case "java/lang/Long" -> integral(key, true, operands, temp);
            case "java/lang/Double" -> floating(key, true, operands, temp);
            case "java/lang/Float" -> floating(key, false, operands, temp);
            default -> null;
        };
    }

    private static Expr math(String key, boolean strict, List<Expr> a, UnaryOperator<Expr> temp) {
        return switch (key) {
            case "round(D)J" -> new Expr.Convert(Type.I64, round(a.get(0), temp));
            case "round(F)I" -> new Expr.Convert(Type.I32, round(new Expr.Convert(Type.F64, a.get(0)), temp));
            case "signum(D)D", "signum(F)F" -> signum(temp.apply(a.get(0)));
            case "copySign(DD)D", "copySign(FF)F" -> {
                Expr magnitude = a.get(0);
                Expr sign = a.get(1);
                if (strict) {
                    // StrictMath treats the sign of a NaN as positive
                    sign = temp.apply(sign);
                    Expr one = sign.type() == Type.F64 ? Expr.Const.f64(1) : Expr.Const.f32(1);
                    sign = new Expr.Select(new Expr.Compare(Cond.NE, sign, sign, true), one, sign);
                }
                yield copySign(magnitude, sign);
            }
            case "toRadians(D)D" -> new Expr.Binary(BinOp.MUL, a.get(0), Expr.Const.f64(DEGREES_TO_RADIANS));
            case "toDegrees(D)D" -> new Expr.Binary(BinOp.MUL, a.get(0), Expr.Const.f64(RADIANS_TO_DEGREES));
            case "getExponent(D)I" -> exponent(a.get(0), true);
            case "getExponent(F)I" -> exponent(a.get(0), false);
            case "ulp(D)D", "ulp(F)F" -> ulp(temp.apply(a.get(0)), temp);
            case "nextUp(D)D", "nextUp(F)F" -> next(temp.apply(a.get(0)), true, temp);
            case "nextDown(D)D", "nextDown(F)F" -> next(temp.apply(a.get(0)), false, temp);
            default -> null;
        };
    }

    private static Expr integral(String key, boolean wide, List<Expr> a, UnaryOperator<Expr> temp) {
        String t = wide ? "J" : "I";
        Type type = wide ? Type.I64 : Type.I32;
        String name = key.substring(0, key.indexOf('('));
        String desc = key.substring(key.indexOf('('));
        if (desc.equals("(" + t + ")I") || desc.equals("(" + t + ")" + t)) {
            Expr x = a.get(0);
            switch (name) {
                case "bitCount":
                    return call(MathFn.BIT_COUNT, Type.I32, x);
                case "numberOfLeadingZeros":
                    return call(MathFn.LEADING_ZEROS, Type.I32, x);
                case "numberOfTrailingZeros":
                    return call(MathFn.TRAILING_ZEROS, Type.I32, x);
                case "reverse":
                    return desc.endsWith(t) ? call(MathFn.REVERSE, type, x) : null;
                case "signum": {
                    // (x >> (bits - 1)) | (-x >>> (bits - 1)), as int
                    Expr v = temp.apply(x);
                    Expr shift = Expr.Const.i32(wide ? 63 : 31);
                    Expr s = new Expr.Binary(BinOp.OR, new Expr.Binary(BinOp.SHR, v, shift),
                            new Expr.Binary(BinOp.USHR, new Expr.Unary(UnOp.NEG, v), shift));
                    return wide ? new Expr.Convert(Type.I32, s) : s;
                }
                case "lowestOneBit": {
                    Expr v = temp.apply(x);
                    return desc.endsWith(t) ? new Expr.Binary(BinOp.AND, v, new Expr.Unary(UnOp.NEG, v)) : null;
                }
                case "highestOneBit": {
                    if (!desc.endsWith(t)) {
                        return null;
                    }
                    Expr v = temp.apply(x);
                    Expr min = wide ? Expr.Const.i64(Long.MIN_VALUE) : Expr.Const.i32(Integer.MIN_VALUE);
                    return new Expr.Binary(BinOp.AND, v,
                            new Expr.Binary(BinOp.USHR, min, call(MathFn.LEADING_ZEROS, Type.I32, v)));
                }
                default:
                    return null;
            }
        }
        if (desc.equals("(" + t + "I)" + t) && (name.equals("rotateLeft") || name.equals("rotateRight"))) {
            // (x << d) | (x >>> -d), the shifts taking their count modulo the width as Java's do
            Expr v = temp.apply(a.get(0));
            Expr d = temp.apply(a.get(1));
            Expr negD = new Expr.Unary(UnOp.NEG, d);
            boolean left = name.equals("rotateLeft");
            return new Expr.Binary(BinOp.OR, new Expr.Binary(left ? BinOp.SHL : BinOp.USHR, v, d),
                    new Expr.Binary(left ? BinOp.USHR : BinOp.SHL, v, negD));
        }
        if (desc.equals("(" + t + t + ")I") && name.equals("compare")) {
            return compare(temp.apply(a.get(0)), temp.apply(a.get(1)));
        }
        if (desc.equals("(" + t + t + ")" + t)) {
            return boxed(name, type, a);
        }
        return null;
    }

    private static Expr floating(String key, boolean dbl, List<Expr> a, UnaryOperator<Expr> temp) {
        String t = dbl ? "D" : "F";
        Type type = dbl ? Type.F64 : Type.F32;
        Type bits = dbl ? Type.I64 : Type.I32;
        return switch (key) {
            case "doubleToRawLongBits(D)J", "floatToRawIntBits(F)I" -> call(MathFn.RAW_BITS, bits, a.get(0));
            case "doubleToLongBits(D)J", "floatToIntBits(F)I" -> canonicalBits(temp.apply(a.get(0)));
            case "longBitsToDouble(J)D", "intBitsToFloat(I)F" -> call(MathFn.FROM_BITS, type, a.get(0));
            default -> {
                String name = key.substring(0, key.indexOf('('));
                String desc = key.substring(key.indexOf('('));
                if (desc.equals("(" + t + t + ")I") && name.equals("compare")) {
                    // Double.compare: -0.0 below 0.0, NaN above everything and equal to itself
                    Expr x = temp.apply(a.get(0));
                    Expr y = temp.apply(a.get(1));
                    Expr byBits = compare(temp.apply(canonicalBits(x)), temp.apply(canonicalBits(y)));
                    yield new Expr.Select(new Expr.Compare(Cond.LT, x, y, false), Expr.Const.i32(-1),
                            new Expr.Select(new Expr.Compare(Cond.GT, x, y, false), Expr.Const.i32(1), byBits));
                }
                if (desc.equals("(" + t + t + ")" + t)) {
                    yield boxed(name, type, a);
                }
                yield null;
            }
        };
    }

    /** {@code Integer.max}, {@code min} and {@code sum} and the other boxes' (which are Math's and {@code +}). */
    private static Expr boxed(String name, Type type, List<Expr> a) {
        return switch (name) {
            case "max" -> new Expr.Call(MathFn.MAX, type, List.of(a.get(0), a.get(1)));
            case "min" -> new Expr.Call(MathFn.MIN, type, List.of(a.get(0), a.get(1)));
            case "sum" -> new Expr.Binary(BinOp.ADD, a.get(0), a.get(1));
            default -> null;
        };
    }

    private static Expr call(MathFn fn, Type result, Expr x) {
        return new Expr.Call(fn, result, List.of(x));
    }

    /** -1, 0 or 1 as {@code x} is below, equal to or above {@code y} (integers). */
    private static Expr compare(Expr x, Expr y) {
        return new Expr.Select(new Expr.Compare(Cond.LT, x, y, false), Expr.Const.i32(-1),
                new Expr.Select(new Expr.Compare(Cond.GT, x, y, false), Expr.Const.i32(1), Expr.Const.i32(0)));
    }

    /**
     * Math.round of a double {@code x}, before the conversion: {@code f = floor(x)}, plus one when
     * {@code x - f >= 0.5}. The difference is exact wherever it is below 0.5 and rounding keeps it at or above 0.5
     * otherwise, so ties go up as Java's do; NaN and the infinities pass through to the conversion, which gives
     * 0 and the saturated values as Java's round does.
     */
    private static Expr round(Expr x, UnaryOperator<Expr> temp) {
        Expr v = temp.apply(x);
        Expr f = temp.apply(new Expr.Call(MathFn.FLOOR, Type.F64, List.of(v)));
        Expr up = new Expr.Compare(Cond.GE, new Expr.Binary(BinOp.SUB, v, f), Expr.Const.f64(0.5), false);
        return new Expr.Select(up, new Expr.Binary(BinOp.ADD, f, Expr.Const.f64(1)), f);
    }

    /** 1 for a positive {@code x}, -1 for a negative one, else {@code x} itself (zeros and NaN). */
    private static Expr signum(Expr x) {
        boolean dbl = x.type() == Type.F64;
        Expr one = dbl ? Expr.Const.f64(1) : Expr.Const.f32(1);
        Expr minusOne = dbl ? Expr.Const.f64(-1) : Expr.Const.f32(-1);
        Expr zero = dbl ? Expr.Const.f64(0) : Expr.Const.f32(0);
        return new Expr.Select(new Expr.Compare(Cond.GT, x, zero, false), one,
                new Expr.Select(new Expr.Compare(Cond.LT, x, zero, false), minusOne, x));
    }

    /** The magnitude's bits without their sign, with the sign bit of {@code sign}. */
    private static Expr copySign(Expr magnitude, Expr sign) {
        boolean dbl = magnitude.type() == Type.F64;
        Type bits = dbl ? Type.I64 : Type.I32;
        Expr low = dbl ? Expr.Const.i64(Long.MAX_VALUE) : Expr.Const.i32(Integer.MAX_VALUE);
        Expr high = dbl ? Expr.Const.i64(Long.MIN_VALUE) : Expr.Const.i32(Integer.MIN_VALUE);
        Expr m = new Expr.Binary(BinOp.AND, call(MathFn.RAW_BITS, bits, magnitude), low);
        Expr s = new Expr.Binary(BinOp.AND, call(MathFn.RAW_BITS, bits, sign), high);
        return call(MathFn.FROM_BITS, magnitude.type(), new Expr.Binary(BinOp.OR, m, s));
    }

    /** {@code doubleToLongBits}: the raw bits, with every NaN as the canonical one. */
    private static Expr canonicalBits(Expr x) {
        boolean dbl = x.type() == Type.F64;
        Type bits = dbl ? Type.I64 : Type.I32;
        Expr nan = dbl ? Expr.Const.i64(0x7ff8000000000000L) : Expr.Const.i32(0x7fc00000);
        return new Expr.Select(new Expr.Compare(Cond.NE, x, x, true), nan, call(MathFn.RAW_BITS, bits, x));
    }

    /** {@code Math.getExponent}: the biased exponent field less the bias. */
    private static Expr exponent(Expr x, boolean dbl) {
        Expr raw = call(MathFn.RAW_BITS, dbl ? Type.I64 : Type.I32, x);
        Expr field = new Expr.Binary(BinOp.AND, new Expr.Binary(BinOp.USHR, raw, Expr.Const.i32(dbl ? 52 : 23)),
                dbl ? Expr.Const.i64(0x7ff) : Expr.Const.i32(0xff));
        Expr e = dbl ? new Expr.Convert(Type.I32, field) : field;
        return new Expr.Binary(BinOp.SUB, e, Expr.Const.i32(dbl ? 1023 : 127));
    }

    /**
     * {@code Math.ulp}: |x| for NaN and the infinities, the least positive value for zeros and subnormals, else the
     * power of two of x's exponent less the significand's width (a subnormal one below the least normal).
     */
    private static Expr ulp(Expr x, UnaryOperator<Expr> temp) {
        boolean dbl = x.type() == Type.F64;
        Expr e = temp.apply(exponent(x, dbl));
        int width = dbl ? 52 : 23;
        int bias = dbl ? 1023 : 127;
        int minExponent = dbl ? -1022 : -126;
        Expr shifted = new Expr.Binary(BinOp.SUB, e, Expr.Const.i32(width));
        Expr normalBits = new Expr.Binary(BinOp.ADD, shifted, Expr.Const.i32(bias));
        Expr subnormalCount = new Expr.Binary(BinOp.SUB, shifted, Expr.Const.i32(minExponent - width));
        Expr normal;
        Expr subnormal;
        if (dbl) {
            normal = call(MathFn.FROM_BITS, Type.F64, new Expr.Binary(BinOp.SHL, new Expr.Convert(Type.I64, normalBits),
                    Expr.Const.i32(52)));
            subnormal = call(MathFn.FROM_BITS, Type.F64, new Expr.Binary(BinOp.SHL, Expr.Const.i64(1), subnormalCount));
        } else {
            normal = call(MathFn.FROM_BITS, Type.F32, new Expr.Binary(BinOp.SHL, normalBits, Expr.Const.i32(23)));
            subnormal = call(MathFn.FROM_BITS, Type.F32, new Expr.Binary(BinOp.SHL, Expr.Const.i32(1), subnormalCount));
        }
        Expr least = dbl ? Expr.Const.f64(Double.MIN_VALUE) : Expr.Const.f32(Float.MIN_VALUE);
        Expr finite = new Expr.Select(new Expr.Compare(Cond.EQ, e, Expr.Const.i32(-bias), false), least,
                new Expr.Select(new Expr.Compare(Cond.GE, shifted, Expr.Const.i32(minExponent), false), normal, subnormal));
        return new Expr.Select(new Expr.Compare(Cond.EQ, e, Expr.Const.i32(bias + 1), false),
                new Expr.Call(MathFn.ABS, x.type(), List.of(x)), finite);
    }

    /**
     * {@code Math.nextUp} ({@code up}) or {@code nextDown}: NaN and the infinity in that direction are returned as
     * they are; a zero becomes the least value of that sign; otherwise the bits move by one towards it.
     */
    private static Expr next(Expr x, boolean up, UnaryOperator<Expr> temp) {
        boolean dbl = x.type() == Type.F64;
        Type bits = dbl ? Type.I64 : Type.I32;
        Expr zero = dbl ? Expr.Const.f64(0) : Expr.Const.f32(0);
        Expr one = dbl ? Expr.Const.i64(1) : Expr.Const.i32(1);
        Expr minusOne = dbl ? Expr.Const.i64(-1) : Expr.Const.i32(-1);
        Expr infinity = dbl ? Expr.Const.f64(up ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY)
                : Expr.Const.f32(up ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY);
        Expr least = dbl ? Expr.Const.f64(up ? Double.MIN_VALUE : -Double.MIN_VALUE)
                : Expr.Const.f32(up ? Float.MIN_VALUE : -Float.MIN_VALUE);
        Expr raw = call(MathFn.RAW_BITS, bits, x);
        // towards +infinity the bits of a positive value grow and those of a negative one shrink; towards -infinity
        // the other way
        Expr step = new Expr.Select(new Expr.Compare(Cond.GT, x, zero, false), up ? one : minusOne, up ? minusOne : one);
        Expr moved = call(MathFn.FROM_BITS, x.type(), new Expr.Binary(BinOp.ADD, raw, step));
        Expr nonZero = new Expr.Select(new Expr.Compare(Cond.EQ, x, zero, false), least, moved);
        Expr special = new Expr.Compare(Cond.NE, x, x, true);
        return new Expr.Select(special, x, new Expr.Select(new Expr.Compare(Cond.EQ, x, infinity, false), x, nonZero));
    }
}
