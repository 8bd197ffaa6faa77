package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.TernaryReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Reduction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code v += c ? x : y} is a reduction: found as one, its kernel assembled, and the kernel interpreter (the device's
 * thread mapping and combining order) against plain Java on random inputs, every output compared.
 */
class TernaryReductionsTest {
    private static final int[] SIZES = {0, 1, 3, 31, 200, 1000};

    @ParameterizedTest
    @CsvSource({"countAbove, +:count", "positiveSum, +:s", "signProduct, *:p", "clampAndCount, +:clamped"})
    void isAReductionWhoseKernelAssembles(String method, String reduction) throws Exception {
        CompiledMethod m = CompilerTest.offload(TernaryReductionKernels.class, method);
        KernelPlan k = m.kernels().get(0);
        assertEquals(List.of("reduction(" + reduction + ")"),
                k.region().reductions().stream().map(Reduction::toString).toList());
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
    }

    @Test
    void givesJavasResults() throws Exception {
        CompiledMethod count = CompilerTest.offload(TernaryReductionKernels.class, "countAbove");
        CompiledMethod positive = CompilerTest.offload(TernaryReductionKernels.class, "positiveSum");
        CompiledMethod sign = CompilerTest.offload(TernaryReductionKernels.class, "signProduct");
        CompiledMethod clamp = CompilerTest.offload(TernaryReductionKernels.class, "clampAndCount");
        Random r = new Random(23);
        for (int n : SIZES) {
            double[] d = r.doubles(n).toArray();
            int[] a = r.ints(n, -5, 6).toArray();
            for (int blocks : new int[] {1, 2, 8}) {
                assertEquals(TernaryReductionKernels.countAbove(d, 0.3, n),
                        KernelInterpreter.run(count, new Object[] {d, 0.3, n}, blocks), "countAbove n=" + n);
                assertEquals(TernaryReductionKernels.positiveSum(a, n),
                        KernelInterpreter.run(positive, new Object[] {a, n}, blocks), "positiveSum n=" + n);
                assertEquals(TernaryReductionKernels.signProduct(a, n),
                        KernelInterpreter.run(sign, new Object[] {a, n}, blocks), "signProduct n=" + n);
                int rows = Math.max(1, n / 10);
                int cols = n / rows;
                int[] plain = a.clone();
                int[] device = a.clone();
                assertEquals(TernaryReductionKernels.clampAndCount(plain, rows, cols, -2),
                        KernelInterpreter.run(clamp, new Object[] {device, rows, cols, -2}, blocks),
                        "clampAndCount n=" + n);
                assertArrayEquals(plain, device, "clampAndCount's array, n=" + n);
            }
        }
    }
}
