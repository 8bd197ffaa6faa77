package org.acc4j.runtime.gpu;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Kernels of the resource, thread and fault tests (the samples' shapes: vector add, SAXPY, an exact dot product, a
 * Jacobi sweep, a data region), run on the GPU and, unchanged, as plain Java for the reference.
 */
public final class SafetyFixtures {
    private SafetyFixtures() {
    }

    @Kernels
    public static void vectorAdd(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    @Kernels
    public static void saxpy(float alpha, float[] x, float[] y, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 256) int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    /** A reduction whose result is exact, so it equals Java's bit for bit whatever the combining order. */
    @Kernels
    public static long dot(long[] a, long[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** One Jacobi sweep over the interior of an n × n grid, flat. */
    @Kernels
    public static void jacobi(double[] out, double[] in, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1]
                        + in[i * n + j + 1]);
            }
        }
    }

    @Kernels
    public static void scale(double[] out, double[] in, double s, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = in[i] * s;
        }
    }

    @Kernels
    public static void scaleRows(double[][] a, int rows, int cols) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                a[i][j] = a[i][j] * 2 + i;
            }
        }
    }

    /**
     * A data region: x stays on the device across two kernels, tmp never leaves it, y comes back. The tests enter it
     * with {@code AccRuntime.enterData} and run its body's kernels through {@code AccRuntime.offload}, as the agent's
     * advice does; called plainly it is the plain-Java result.
     */
    @Data(copyin = "x", create = "tmp", copyout = "y")
    public static void pipeline(double[] x, double[] tmp, double[] y, int n) {
        scale(tmp, x, 3, n);
        vectorAdd(tmp, x, y, n);
    }

    /** The JVM descriptor of the fixture {@code name}. */
    public static String descriptor(String name) {
        Method m = Arrays.stream(SafetyFixtures.class.getDeclaredMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow(() -> new IllegalArgumentException(name));
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }
}
