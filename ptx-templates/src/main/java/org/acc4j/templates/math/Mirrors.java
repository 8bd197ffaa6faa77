package org.acc4j.templates.math;

import org.acc4j.templates.MathLibrary.Function;
import org.acc4j.templates.MathLibrary.Routine;

/**
 * Every routine of {@link org.acc4j.templates.MathLibrary} by its host mirror and by StrictMath, for tests that
 * go over {@code MathLibrary.all()}: one switch here instead of one per test. A one-argument function ignores y.
 */
public final class Mirrors {
    private Mirrors() {
    }

    /** The bits the routine computes: its mirror, float routines called with float arguments and widened. */
    public static double mirror(Routine r, double x, double y) {
        float fx = (float) x;
        float fy = (float) y;
        boolean d = r.f64();
        return switch (r.function()) {
            case EXP -> d ? AccMath.exp(x) : AccMath.expf(fx);
            case LOG -> d ? AccMath.log(x) : AccMath.logf(fx);
            case POW -> d ? AccMath.pow(x, y) : AccMath.powf(fx, fy);
            case SIN -> d ? AccMath.sin(x) : AccMath.sinf(fx);
            case COS -> d ? AccMath.cos(x) : AccMath.cosf(fx);
            case TAN -> d ? AccMath.tan(x) : AccMath.tanf(fx);
            case TANH -> d ? AccMath.tanh(x) : AccMath.tanhf(fx);
            case ATAN2 -> AccMathInverse.atan2(x, y);
            case ATAN -> AccMathInverse.atan(x);
            case ASIN -> AccMathInverse.asin(x);
            case ACOS -> AccMathInverse.acos(x);
            case HYPOT -> AccMathAlgebraic.hypot(x, y);
            case LOG10 -> AccMathLogExp.log10(x);
            case LOG1P -> AccMathLogExp.log1p(x);
            case EXPM1 -> AccMathLogExp.expm1(x);
            case SINH -> AccMathLogExp.sinh(x);
            case COSH -> AccMathLogExp.cosh(x);
            case CBRT -> AccMathAlgebraic.cbrt(x);
        };
    }

    /** StrictMath's value of the function (for atan2, y is the second argument: atan2(x, y)). */
    public static double strict(Function f, double x, double y) {
        return switch (f) {
            case EXP -> StrictMath.exp(x);
            case LOG -> StrictMath.log(x);
            case POW -> StrictMath.pow(x, y);
            case SIN -> StrictMath.sin(x);
            case COS -> StrictMath.cos(x);
            case TAN -> StrictMath.tan(x);
            case TANH -> StrictMath.tanh(x);
            case ATAN2 -> StrictMath.atan2(x, y);
            case ATAN -> StrictMath.atan(x);
            case ASIN -> StrictMath.asin(x);
            case ACOS -> StrictMath.acos(x);
            case HYPOT -> StrictMath.hypot(x, y);
            case LOG10 -> StrictMath.log10(x);
            case LOG1P -> StrictMath.log1p(x);
            case EXPM1 -> StrictMath.expm1(x);
            case SINH -> StrictMath.sinh(x);
            case COSH -> StrictMath.cosh(x);
            case CBRT -> StrictMath.cbrt(x);
        };
    }

    /** The input kind of a function's argument sets in {@link Inputs}. */
    public static Inputs.Kind kind(Function f) {
        return Inputs.Kind.valueOf(f.name());
    }
}
