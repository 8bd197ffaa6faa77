package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.UserForms;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each kernel of {@link UserForms} compiles to the device (no nest on the host), runs on the kernel interpreter
 * (with its race check and the checks made before a launch) with plain Java's results on random inputs, every
 * element compared, and its PTX assembles where ptxas is on the PATH.
 */
class UserFormsTest {
    static Object[] args(String kernel, Random r) {
        int n = 500;
        return switch (kernel) {
            case "switches" -> {
                int[] op = r.ints(n, -2, 4).toArray();
                op[7] = 100_000;
                char[] c = new char[n];
                for (int i = 0; i < n; i++) {
                    c[i] = "aezq".charAt(r.nextInt(4));
                }
                yield new Object[] {op, c, r.doubles(n).toArray(), new double[n], n};
            }
            case "floors" -> {
                int[] x = r.ints(n).toArray();
                int[] y = r.ints(n, -50, 50).map(v -> v == 0 ? 3 : v).toArray();
                long[] lx = r.longs(n).toArray();
                long[] ly = r.longs(n, -50, 50).map(v -> v == 0 ? -3 : v).toArray();
                x[0] = Integer.MIN_VALUE;
                y[0] = -1;
                lx[0] = Long.MIN_VALUE;
                ly[0] = -1;
                yield new Object[] {x, y, lx, ly, new int[2 * n], new long[2 * n], n};
            }
            case "classify" -> {
                double[] a = r.doubles(n).toArray();
                float[] f = new float[n];
                double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MAX_VALUE,
                    -0.0, Double.MIN_VALUE};
                for (int i = 0; i < n; i++) {
                    a[i] = i % 3 == 0 ? special[i % special.length] : a[i];
                    f[i] = (float) special[(i / 2) % special.length];
                }
                yield new Object[] {a, f, new int[n], n};
            }
            case "stepTwo" -> new Object[] {r.doubles(n).toArray(), new double[n], n};
            case "rowSwap" -> {
                double[][] a = new double[40][];
                for (int i = 0; i < a.length; i++) {
                    a[i] = r.doubles(40).toArray();
                }
                yield new Object[] {a, 40, 3, 17};
            }
            case "trapezoids" -> new Object[] {new double[60], 100};
            default -> throw new IllegalArgumentException(kernel);
        };
    }

    static Method method(String name) {
        for (Method m : UserForms.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"switches", "floors", "classify", "stepTwo", "rowSwap", "trapezoids"})
    void compilesAndMatchesPlainJava(String kernel) throws Exception {
        Method m = method(kernel);
        byte[] bytes;
        try (InputStream in = UserForms.class.getResourceAsStream("UserForms.class")) {
            bytes = in.readAllBytes();
        }
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        Compiler.Result r = Compiler.compile(bytes, kernel, desc, 90);
        assertTrue(r instanceof Compiler.Offload, () -> kernel + " stays on the host: " + ((Compiler.Host) r).reason());
        CompiledMethod cm = ((Compiler.Offload) r).method();
        Object[] expected = args(kernel, new Random(kernel.hashCode()));
        m.invoke(null, expected);
        Object[] got = args(kernel, new Random(kernel.hashCode()));
        KernelInterpreter.run(cm, got, 3);
        for (int i = 0; i < expected.length; i++) {
            assertNull(difference(expected[i], got[i]), kernel + " argument " + i);
        }
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (KernelPlan k : cm.kernels()) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
            if (k.unchecked() != null) {
                assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
            }
        }
    }

    /** The first index where two arrays (rows included) differ, or null. */
    static String difference(Object e, Object g) {
        if (e == null || !e.getClass().isArray()) {
            return java.util.Objects.equals(e, g) ? null : e + " against " + g;
        }
        assertEquals(Array.getLength(e), Array.getLength(g));
        for (int i = 0; i < Array.getLength(e); i++) {
            String d = difference(Array.get(e, i), Array.get(g, i));
            if (d != null) {
                return "[" + i + "]" + d;
            }
        }
        return null;
    }
}
