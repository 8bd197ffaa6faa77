package org.acc4j.runtime;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.Data;
import org.acc4j.Kernels;

/**
 * Kernels of the deferred-launch tests, run on the GPU and, unchanged, as plain Java for the reference. {@link #churn}
 * is slow on purpose (each thread steps a linear congruential generator {@code rounds} times before it reads its
 * input), so that an operation that did not wait for it would overlap it.
 */
public final class DeferFixtures {
    /** The generator's multiplier and increment. */
    static final int A = 1103515245;
    static final int C = 12345;

    private DeferFixtures() {
    }

    /** {@code out[i]}: {@code i} stepped {@code rounds} times, xor {@code in[i]}, read after the steps. */
    @Kernels
    public static void churn(int[] in, int[] out, int rounds, int n) {
        for (int i = 0; i < n; i++) {
            int v = i;
            for (int r = 0; r < rounds; r++) {
                v = v * A + C;
            }
            out[i] = v ^ in[i];
        }
    }

    /** {@link #churn}'s result computed quickly: the {@code rounds} steps composed into one affine map. */
    public static int[] churned(int[] in, int rounds, int n) {
        int a = 1;
        int c = 0;
        int stepA = A;
        int stepC = C;
        // binary powers of the step x -> A x + C, composed where rounds has a bit
        for (int k = rounds; k > 0; k >>>= 1) {
            if ((k & 1) != 0) {
                c = stepA * c + stepC;
                a = stepA * a;
            }
            stepC = stepA * stepC + stepC;
            stepA = stepA * stepA;
        }
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = (a * i + c) ^ in[i];
        }
        return out;
    }

    @Kernels
    public static void step(int[] x, int[] y, int c, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * c + y[i];
        }
    }

    /** A reduction: its result is read by the host after its launch, which is never deferred. */
    @Kernels
    public static long total(int[] x, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += x[i];
        }
        return s;
    }

    /** An integer division: the kernel can raise an ArithmeticException, so its launches are waited for. */
    @Kernels
    public static void divide(int[] a, int[] b, int k, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i] / k;
        }
    }

    /** A data region around steps: x comes back at its exit. */
    @Data(copy = "x", copyin = "y")
    public static void steps(int[] x, int[] y, int c, int n, int times) {
        for (int t = 0; t < times; t++) {
            step(x, y, c, n);
        }
    }

    /**
     * A 4-point average over the rows of a {@code double[][]}: {@code b} is only written, every element of its interior
     * rectangle, so a call enters it with that window of rows; on present arrays its launches are deferred too.
     */
    @Kernels
    public static void smooth(double[][] a, double[][] b, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
            }
        }
    }

    /** The JVM descriptor of the fixture {@code name}. */
    public static String descriptor(String name) {
        Method m = Arrays.stream(DeferFixtures.class.getDeclaredMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow(() -> new IllegalArgumentException(name));
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }
}
