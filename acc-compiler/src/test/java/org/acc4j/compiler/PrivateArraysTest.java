package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.PrivateArrayKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Arrays allocated in a loop body: their elements become the thread's scalars (the report says so), the kernels
 * assemble, the interpreter gives plain Java's results, and the forms that stay on the host name the array.
 */
class PrivateArraysTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "powers | t = new double[4] is private to each iteration",
        "cloned | d = new int[3] is private to each iteration",
        "median5 | w = new float[5] is private to each iteration",
        "maskedIndex | h = new long[8] is private to each iteration"})
    void privateArrayIsReportedAndAssembles(String method, String note) throws Exception {
        CompiledMethod m = CompilerTest.offload(PrivateArrayKernels.class, method);
        assertTrue(m.report().stream().anyMatch(l -> l.contains(note)), m.report()::toString);
        KernelPlan k = m.kernels().get(0);
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "dynamicIndex | the private array h indexed by (a[i] % 8), which is not known at compile time and not provably"
            + " within its bounds",
        "unknownSize | an allocation (new) of t = new double[m]: its size is not a constant from 0 to 32",
        "outOfBounds | the private array t indexed by 2, out of bounds for length 2 (Java throws"
            + " ArrayIndexOutOfBoundsException there)",
        "cloneParam | an allocation (new) of t = x.clone(): its length is not known at compile time"})
    void refusedFormsNameTheArray(String method, String expected) {
        Diagnostic d = CompilerTest.host(PrivateArrayKernels.class, method);
        assertTrue(d.toString().contains(expected), d::toString);
        assertTrue(d.toString().contains("PrivateArrayKernels." + method + " (PrivateArrayKernels.java:"), d::toString);
    }

    @Test
    void interpreterMatchesPlainJava() throws Exception {
        Random r = new Random(9);
        CompiledMethod powers = CompilerTest.offload(PrivateArrayKernels.class, "powers");
        CompiledMethod cloned = CompilerTest.offload(PrivateArrayKernels.class, "cloned");
        CompiledMethod median = CompilerTest.offload(PrivateArrayKernels.class, "median5");
        CompiledMethod masked = CompilerTest.offload(PrivateArrayKernels.class, "maskedIndex");
        for (int n : new int[] {0, 1, 45, 600}) {
            double[] x = r.doubles(n).map(v -> 4 * v - 2).toArray();
            double[] y = new double[n];
            double[] yGot = new double[n];
            PrivateArrayKernels.powers(x, y, n);
            KernelInterpreter.run(powers, new Object[] {x, yGot, n}, 3);
            assertArrayEquals(y, yGot, "powers n=" + n);
            int[] a = r.ints(n, -5, 5).toArray();
            int[] out = new int[n];
            int[] outGot = new int[n];
            PrivateArrayKernels.cloned(a, out, n);
            KernelInterpreter.run(cloned, new Object[] {a, outGot, n}, 2);
            assertArrayEquals(out, outGot, "cloned n=" + n);
            int[] b = r.ints(n).toArray();
            int[] h = new int[n];
            int[] hGot = new int[n];
            PrivateArrayKernels.maskedIndex(b, h, n);
            KernelInterpreter.run(masked, new Object[] {b, hGot, n}, 2);
            assertArrayEquals(h, hGot, "maskedIndex n=" + n);
            int rows = n / 20;
            int cols = 17;
            float[] w = new float[rows * (cols + 4)];
            for (int i = 0; i < w.length; i++) {
                w[i] = (float) r.nextGaussian();
            }
            float[] m = new float[rows * cols];
            float[] mGot = new float[rows * cols];
            PrivateArrayKernels.median5(w, m, rows, cols);
            KernelInterpreter.run(median, new Object[] {w, mGot, rows, cols}, 2);
            assertArrayEquals(m, mGot, "median5 rows=" + rows);
        }
    }
}
