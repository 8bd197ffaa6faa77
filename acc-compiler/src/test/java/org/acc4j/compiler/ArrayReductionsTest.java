package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.ArrayReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reductions into array elements and into a local of each outer iteration: which nests are accepted and what the
 * report says, that their kernels assemble, the interpreter against plain Java on random inputs, and the
 * diagnostics of the forms that stay on the host.
 */
class ArrayReductionsTest {
    @ParameterizedTest
    @CsvSource({
        "twoSums, 'reduction(+:c[...]) into at most 2 elements of c'",
        "bins, 'reduction(+:c[...]) into at most 8 elements of c'",
        "extremes, 'reduction(min:lo[...]) into at most 4 elements of lo'",
        "moments2d, 'reduction(+:c[...]) into at most 3 elements of c'"})
    void arrayReductionIsReportedAndAssembles(String method, String note) throws Exception {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, method);
        assertTrue(m.report().stream().anyMatch(l -> l.contains(note)), m.report()::toString);
        KernelPlan k = m.kernels().get(0);
        assertTrue(atomics(k.region().loop().body()) > 0, "no atomic update in " + method);
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
    }

    @ParameterizedTest
    @CsvSource({"rowSums", "rowSumsClause", "rowMaxClause"})
    void perRowReductionRunsOnTheDeviceAndAssembles(String method) throws Exception {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, method);
        KernelPlan k = m.kernels().get(0);
        assertTrue(k.region().reductions().isEmpty(), "a per-row local is no reduction of the whole nest");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("sequential in each thread")), m.report()::toString);
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "doubleSums | a reduction into elements of the double array c (c[0] += ... (line",
        "doubleSums | supported with + - max min & | ^ on int and long elements (a floating-point sum into a local",
        "tooMany | a reduction into up to 64 elements of c (c[k] += ... (line",
        "tooMany | an array reduction may cover at most 32 elements",
        "product | a reduction into elements of the long array c (c[0] *= ...",
        "doubleSums | and with Math.max and Math.min on float and double elements",
        "sumBesideParallelLoop | an update of the reduction variable s beside the parallel loop over k (it would be"
            + " counted once per thread of that loop)",
        "rowNotReduction | reduction(+:s): s is not a reduction over the loop at line",
        "rowNotReduction | is not an accumulation v = v op e"})
    void refusedFormsSayWhy(String method, String expected) {
        Diagnostic d = CompilerTest.host(ArrayReductionKernels.class, method);
        assertTrue(d.toString().contains(expected), d::toString);
        assertTrue(d.toString().contains("ArrayReductionKernels." + method + " (ArrayReductionKernels.java:"), d::toString);
    }

    @Test
    void interpreterMatchesPlainJava() throws Exception {
        Random r = new Random(5);
        CompiledMethod two = CompilerTest.offload(ArrayReductionKernels.class, "twoSums");
        CompiledMethod bins = CompilerTest.offload(ArrayReductionKernels.class, "bins");
        CompiledMethod rows = CompilerTest.offload(ArrayReductionKernels.class, "rowSumsClause");
        for (int n : new int[] {0, 1, 33, 700}) {
            int[] x = r.ints(n).toArray();
            long[] c = r.longs(2).toArray();
            long[] expected = c.clone();
            ArrayReductionKernels.twoSums(x, expected, n);
            for (int blocks : new int[] {1, 4}) {
                long[] got = c.clone();
                KernelInterpreter.run(two, new Object[] {x, got, n}, blocks);
                assertArrayEquals(expected, got, "twoSums n=" + n);
            }
            int[] b = r.ints(8).toArray();
            int[] bExpected = b.clone();
            ArrayReductionKernels.bins(x, bExpected, n);
            int[] bGot = b.clone();
            KernelInterpreter.run(bins, new Object[] {x, bGot, n}, 3);
            assertArrayEquals(bExpected, bGot, "bins n=" + n);
            int m = n / 7;
            double[] a = r.doubles(m * 7L).map(v -> v - 0.5).toArray();
            double[] rowsExpected = new double[m];
            ArrayReductionKernels.rowSumsClause(a, rowsExpected, m, 7);
            double[] rowsGot = new double[m];
            KernelInterpreter.run(rows, new Object[] {a, rowsGot, m, 7}, 2);
            assertArrayEquals(rowsExpected, rowsGot, "rowSumsClause m=" + m);
        }
        assertEquals(List.of(), two.kernels().get(0).region().reductions());
    }

    @Test
    void aReductionBesideAnInnerLoopKeepsThatLoopSequential() throws Exception {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, "sumBesideArrayReduction");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("sequential in each thread: the loop around it updates"
                + " the reduction variable s beside it")), m.report()::toString);
        Random r = new Random(21);
        for (int n : new int[] {0, 1, 2, 500}) {
            int[] x = r.ints(n, -1000, 1000).toArray();
            long[] c = r.longs(3, -50, 50).toArray();
            long[] expected = c.clone();
            long s = ArrayReductionKernels.sumBesideArrayReduction(x, expected, n);
            for (int blocks : new int[] {1, 3}) {
                long[] got = c.clone();
                assertEquals(s, KernelInterpreter.run(m, new Object[] {x, got, n}, blocks), "s n=" + n);
                assertArrayEquals(expected, got, "c n=" + n);
            }
        }
    }

    private static int atomics(List<Stmt> stmts) {
        int n = 0;
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Atomic) {
                n++;
            } else if (s instanceof Stmt.For f) {
                n += atomics(f.body());
            }
        }
        return n;
    }
}
