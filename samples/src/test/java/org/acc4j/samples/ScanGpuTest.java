package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.fixtures.ScanKernels;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Scans on the GPU: every operator and type, inclusive and exclusive ({@link ScanKernels}), run by the one-pass
 * device scan against the same methods as plain Java on random inputs from fixed seeds, over many tiles and a
 * partial one: every element bit for bit for integers and {@code min}/{@code max}, within the bound of the roundings
 * for float sums and products (regrouped, {@code relaxed}). Then the benchmark's scans on 2^22 elements, resident,
 * repeated, so that a look-back that read a stale flag would show. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class ScanGpuTest {
    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static void offload(Class<?> owner, Method m, Object... args) {
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        assertTrue(AccRuntime.offload(owner, m.getName(), desc, null, args), m.getName() + " ran on the host");
    }

    private static Object randomArray(Class<?> type, String op, Random r, int n) {
        Object a = Array.newInstance(type, n);
        for (int i = 0; i < n; i++) {
            Object v;
            if (type == int.class) {
                v = op.equals("mul") ? 1 + 2 * r.nextInt(3) : r.nextInt();
            } else if (type == long.class) {
                v = op.equals("mul") ? 1L + 2 * r.nextInt(3) : r.nextLong();
            } else if (type == float.class) {
                v = (float) (op.equals("mul") ? 1 + r.nextGaussian() * 1e-4 : r.nextGaussian());
            } else {
                v = op.equals("mul") ? 1 + r.nextGaussian() * 1e-4 : r.nextGaussian();
            }
            Array.set(a, i, v);
        }
        return a;
    }

    private static double at(Object a, int i) {
        return ((Number) Array.get(a, i)).doubleValue();
    }

    @Test
    void everyOperatorAndTypeGivesJavasScan() throws Exception {
        Random r = new Random(1650);
        int cases = 0;
        for (Method jm : ScanKernels.class.getDeclaredMethods()) {
            String name = jm.getName();
            if (!name.endsWith("Incl") && !name.endsWith("Excl")) {
                continue;
            }
            cases++;
            String op = name.replaceAll("[A-Z].*", "");
            Class<?> type = jm.getParameterTypes()[0].getComponentType();
            boolean inclusive = name.endsWith("Incl");
            int n = 1_000_003;
            int lo = 5;
            Object a = randomArray(type, op, r, n);
            Object s0 = Array.get(randomArray(type, op, r, 1), 0);
            Object b = Array.newInstance(type, n);
            Object expected = Array.newInstance(type, n);
            jm.invoke(null, a, expected, s0, lo, n);
            offload(ScanKernels.class, jm, a, b, s0, lo, n);
            if (type == int.class || type == long.class || op.equals("min") || op.equals("max")) {
                switch (type.getName()) {
                    case "int" -> assertArrayEquals((int[]) expected, (int[]) b, name);
                    case "long" -> assertArrayEquals((long[]) expected, (long[]) b, name);
                    case "float" -> assertArrayEquals((float[]) expected, (float[]) b, name);
                    default -> assertArrayEquals((double[]) expected, (double[]) b, name);
                }
                continue;
            }
            double eps = type == float.class ? Math.ulp(1f) : Math.ulp(1.0);
            double abs = Math.abs(((Number) s0).doubleValue());
            for (int i = 0; i < n; i++) {
                if (i >= lo && inclusive) {
                    abs += Math.abs(at(a, i));
                }
                int k = Math.max(0, i - lo + 1);
                double bound = op.equals("add") ? 2.0 * (k + 2) * eps * abs : 2.0 * (k + 2) * eps * 4 * Math.abs(at(expected, i));
                assertTrue(Math.abs(at(expected, i) - at(b, i)) <= bound, name + " element " + i + ": "
                        + at(expected, i) + " vs " + at(b, i) + " (bound " + bound + ")");
                if (i >= lo && !inclusive) {
                    abs += Math.abs(at(a, i));
                }
            }
        }
        assertEquals(44, cases);
    }

    @Test
    void repeatedResidentScansStayExact() throws Exception {
        Random r = new Random(1651);
        int n = 1 << 22;
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextLong() >> 4;
        }
        long[] b = new long[n];
        long[] expected = new long[n];
        long[] excl = new long[n];
        long s = 0;
        for (int i = 0; i < n; i++) {
            excl[i] = s;
            s += a[i];
            expected[i] = s;
        }
        Method incl = ScanBench.class.getDeclaredMethod("inclusiveLong", long[].class, long[].class, int.class);
        Method ex = ScanBench.class.getDeclaredMethod("exclusiveLong", long[].class, long[].class, int.class);
        Acc.copyin(a);
        Acc.create(b);
        for (int rep = 0; rep < 20; rep++) {
            offload(ScanBench.class, rep % 2 == 0 ? incl : ex, a, b, n);
            Acc.updateHost(b);
            assertArrayEquals(rep % 2 == 0 ? expected : excl, b, "repetition " + rep);
        }
        // a shorter scan after longer ones: fewer tiles, flags of the earlier launches cleared
        offload(ScanBench.class, incl, a, b, 3000);
        Acc.updateHost(b);
        for (int i = 0; i < 3000; i++) {
            assertEquals(expected[i], b[i], "element " + i);
        }
        Acc.delete(a, b);
    }
}
