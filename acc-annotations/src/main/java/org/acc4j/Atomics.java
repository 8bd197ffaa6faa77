package org.acc4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The host semantics of {@link Acc}'s atomic routines: Java's {@link VarHandle} array-element atomics, with their
 * volatile memory effects, their {@code ArrayIndexOutOfBoundsException} and their {@code NullPointerException}.
 * Minimum and maximum, which {@code VarHandle} lacks, are a compare-and-set loop over its volatile access modes; on
 * {@code float} and {@code double} they are {@link Math#min}/{@link Math#max} (a NaN wins, {@code -0.0 < 0.0}), and
 * the compare-and-set compares bits, as {@code VarHandle}'s does.
 */
final class Atomics {
    static final VarHandle INT = MethodHandles.arrayElementVarHandle(int[].class);
    static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);
    static final VarHandle FLOAT = MethodHandles.arrayElementVarHandle(float[].class);
    static final VarHandle DOUBLE = MethodHandles.arrayElementVarHandle(double[].class);

    private Atomics() {
    }

    static int min(int[] a, int i, int v) {
        int old = (int) INT.getVolatile(a, i);
        while (!INT.weakCompareAndSet(a, i, old, Math.min(old, v))) {
            old = (int) INT.getVolatile(a, i);
        }
        return old;
    }

    static int max(int[] a, int i, int v) {
        int old = (int) INT.getVolatile(a, i);
        while (!INT.weakCompareAndSet(a, i, old, Math.max(old, v))) {
            old = (int) INT.getVolatile(a, i);
        }
        return old;
    }

    static long min(long[] a, int i, long v) {
        long old = (long) LONG.getVolatile(a, i);
        while (!LONG.weakCompareAndSet(a, i, old, Math.min(old, v))) {
            old = (long) LONG.getVolatile(a, i);
        }
        return old;
    }

    static long max(long[] a, int i, long v) {
        long old = (long) LONG.getVolatile(a, i);
        while (!LONG.weakCompareAndSet(a, i, old, Math.max(old, v))) {
            old = (long) LONG.getVolatile(a, i);
        }
        return old;
    }

    static float min(float[] a, int i, float v) {
        float old = (float) FLOAT.getVolatile(a, i);
        while (!FLOAT.weakCompareAndSet(a, i, old, Math.min(old, v))) {
            old = (float) FLOAT.getVolatile(a, i);
        }
        return old;
    }

    static float max(float[] a, int i, float v) {
        float old = (float) FLOAT.getVolatile(a, i);
        while (!FLOAT.weakCompareAndSet(a, i, old, Math.max(old, v))) {
            old = (float) FLOAT.getVolatile(a, i);
        }
        return old;
    }

    static double min(double[] a, int i, double v) {
        double old = (double) DOUBLE.getVolatile(a, i);
        while (!DOUBLE.weakCompareAndSet(a, i, old, Math.min(old, v))) {
            old = (double) DOUBLE.getVolatile(a, i);
        }
        return old;
    }

    static double max(double[] a, int i, double v) {
        double old = (double) DOUBLE.getVolatile(a, i);
        while (!DOUBLE.weakCompareAndSet(a, i, old, Math.max(old, v))) {
            old = (double) DOUBLE.getVolatile(a, i);
        }
        return old;
    }
}
