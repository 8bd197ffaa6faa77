package org.acc4j.compiler.jvm;

import java.util.Objects;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Evaluator;

/**
 * One nest compiled to JVM bytecode by {@link JvmEmitter}: the generated class extends this one. {@link #trip} runs the
 * region's prologue and gives the trip count of its outermost parallel level (all its collapsed loops together), or 1
 * when that level is not the nest's outermost loop; {@link #chunk} runs the iterations {@code [lo, hi)} of that level,
 * its inner parallel levels as plain loops, and writes the chunk's partial reductions as raw bits. A proven variant
 * that runs the nest in another loop order ({@link LoopOrder}) cuts its own first level: {@link #tripProven}.
 *
 * <p>Both take the nest's arrays (in {@link HostKernels}' order) and its scalar inputs as raw bits. The static
 * methods here are what the generated code calls: the checked accesses, with Java's exceptions and messages.
 */
public abstract class JvmKernel {
    protected JvmKernel() {
    }

    /** The trip count of the outermost parallel level (the product over its collapsed loops); 1 when not chunked. */
    public abstract long trip(Object[] arrays, long[] scalars);

    /**
     * The trip count of the level the proven variant cuts into chunks: {@link #trip}'s, or that of the first level of
     * the order it runs a reordered nest in ({@link LoopOrder}).
     */
    public abstract long tripProven(Object[] arrays, long[] scalars);

    /** The trip count of the level that {@link #chunk} with {@code proven} cuts into chunks. */
    public final long trip(boolean proven, Object[] arrays, long[] scalars) {
        return proven ? tripProven(arrays, scalars) : trip(arrays, scalars);
    }

    /**
     * Runs iterations {@code [lo, hi)} of the outermost parallel level; {@code proven} picks the variant without the
     * bounds checks the host proved for this call.
     */
    public abstract void chunk(boolean proven, Object[] arrays, long[] scalars, long lo, long hi, long[] partials);

    // ------------------------------------------------------------------ called by the generated code

    /** Java's trip count of a parallel loop (its bounds widened to {@code long}), as the kernels compute it. */
    public static long tripCount(long lower, int cond, long bound, long step) {
        return Evaluator.tripCount(lower, Cond.values()[cond], bound, step);
    }

    public static ArithmeticException divisionByZero() {
        return new ArithmeticException("/ by zero");
    }

    /** Java's result of {@code a == b} where a NaN operand makes it true. */
    public static boolean eqOrNaN(double a, double b) {
        return a == b || a != a || b != b;
    }

    /** Java's result of {@code a != b} where a NaN operand makes it false. */
    public static boolean neAndOrdered(double a, double b) {
        return a < b || a > b;
    }

    public static Object row(Object[] rows, int r) {
        return rows[Objects.checkIndex(r, rows.length)];
    }

    public static int index(int i, int length) {
        return Objects.checkIndex(i, length);
    }

    public static int ld(int[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static long ld(long[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static float ld(float[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static double ld(double[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static int ld(byte[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static int ld(short[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static int ld(char[] a, int i) {
        return a[Objects.checkIndex(i, a.length)];
    }

    public static int ld(boolean[] a, int i) {
        return a[Objects.checkIndex(i, a.length)] ? 1 : 0;
    }

    public static void st(int[] a, int i, int v) {
        a[Objects.checkIndex(i, a.length)] = v;
    }

    public static void st(long[] a, int i, long v) {
        a[Objects.checkIndex(i, a.length)] = v;
    }

    public static void st(float[] a, int i, float v) {
        a[Objects.checkIndex(i, a.length)] = v;
    }

    public static void st(double[] a, int i, double v) {
        a[Objects.checkIndex(i, a.length)] = v;
    }

    public static void st(byte[] a, int i, int v) {
        a[Objects.checkIndex(i, a.length)] = (byte) v;
    }

    public static void st(short[] a, int i, int v) {
        a[Objects.checkIndex(i, a.length)] = (short) v;
    }

    public static void st(char[] a, int i, int v) {
        a[Objects.checkIndex(i, a.length)] = (char) v;
    }

    public static void st(boolean[] a, int i, int v) {
        a[Objects.checkIndex(i, a.length)] = (v & 1) != 0;
    }
}
