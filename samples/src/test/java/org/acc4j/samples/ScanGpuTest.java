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
import org.acc4j.compiler.fixtures.ScanInputs;
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
            Object a = ScanInputs.randomArray(type, op, r, n, 1e-4);
            Object s0 = Array.get(ScanInputs.randomArray(type, op, r, 1, 1e-4), 0);
            Object b = Array.newInstance(type, n);
            Object expected = Array.newInstance(type, n);
            jm.invoke(null, a, expected, s0, lo, n);
            offload(ScanKernels.class, jm, a, b, s0, lo, n);
            // twice the bound of the interpreter's test
            ScanInputs.assertScan(name, op, inclusive, a, s0, lo, n, expected, b, 2);
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
