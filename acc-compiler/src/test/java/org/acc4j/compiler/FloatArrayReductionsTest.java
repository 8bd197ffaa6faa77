package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.ArrayReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Floating-point sums into array elements ({@code c[k] += e} over a constant range of {@code k}), allowed by a
 * {@code reduction} clause naming the array or by {@code @Kernels(relaxed = true)}: atomic adds on the elements,
 * reported with their error bound, PTX assembled by ptxas, and the interpreter's results (several blocks) within
 * that bound of plain Java's on random inputs, every element.
 */
class FloatArrayReductionsTest {

    @ParameterizedTest
    @ValueSource(strings = {"doubleSumsClause", "floatBinsRelaxed", "sectionClause"})
    void allowedSumsBecomeAtomicAddsAndAssemble(String method) throws Exception {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, method);
        var k = m.kernels().get(0);
        assertTrue(atomics(List.of(k.region().loop())) > 0, method);
        assertTrue(m.report().stream().anyMatch(l -> l.contains("each update is an atomic add on the element")
                && l.contains("(n - 1) * ulp(1) / 2")), String.join("\n", m.report()));
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
            if (k.unchecked() != null) {
                assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
            }
        }
    }

    @Test
    void withoutAClauseTheSumStaysOnTheHostSayingWhatAllowsIt() {
        Diagnostic d = CompilerTest.host(ArrayReductionKernels.class, "doubleSums");
        assertTrue(d.toString().contains("where @Loop(reduction = \"+:c\") on a loop of the nest or @Kernels(relaxed"
                + " = true) allows the sum's order to vary"), d::toString);
    }

    /** The first-order bound of any order's sum of {@code terms} against the exact sum, times two (two orders). */
    private static double bound(double[] terms, double u) {
        double mag = 0;
        for (double t : terms) {
            mag += Math.abs(t);
        }
        return 2 * (terms.length * u * mag) + Double.MIN_NORMAL;
    }

    @Test
    void theInterpreterIsWithinTheBoundOfPlainJava() throws Exception {
        Random r = new Random(77);
        CompiledMethod clause = CompilerTest.offload(ArrayReductionKernels.class, "doubleSumsClause");
        CompiledMethod bins = CompilerTest.offload(ArrayReductionKernels.class, "floatBinsRelaxed");
        CompiledMethod section = CompilerTest.offload(ArrayReductionKernels.class, "sectionClause");
        for (int n : new int[] {0, 1, 100, 4099}) {
            double[] x = r.doubles(n).map(v -> v * 200 - 100).toArray();
            double[] c = {r.nextDouble(), r.nextDouble()};
            double[] expected = c.clone();
            ArrayReductionKernels.doubleSumsClause(x, expected, n);
            double[] squares = java.util.Arrays.stream(x).map(v -> v * v).toArray();
            for (int blocks : new int[] {1, 5}) {
                double[] got = c.clone();
                KernelInterpreter.run(clause, new Object[] {x, got, n}, blocks);
                assertEquals(expected[0], got[0], bound(x, 0x1p-53), "c[0] n=" + n);
                assertEquals(expected[1], got[1], bound(squares, 0x1p-53), "c[1] n=" + n);
            }
            double[] s3 = new double[3];
            double[] e3 = s3.clone();
            double sum = ArrayReductionKernels.sectionClause(x, e3, n);
            Object ret = KernelInterpreter.run(section, new Object[] {x, s3, n}, 3);
            for (int k = 0; k < 3; k++) {
                int w = k - 1;
                double[] terms = java.util.Arrays.stream(x).map(v -> v * w).toArray();
                assertEquals(e3[k], s3[k], bound(terms, 0x1p-53), "section c[" + k + "] n=" + n);
            }
            assertEquals(sum, (double) ret, bound(x, 0x1p-53), "s n=" + n);
            int rows = n / 37;
            float[] a = new float[rows * 37];
            for (int i = 0; i < a.length; i++) {
                a[i] = r.nextFloat() * 2 - 1;
            }
            float[] fc = new float[4];
            float[] fe = fc.clone();
            ArrayReductionKernels.floatBinsRelaxed(a, fe, rows, 37);
            KernelInterpreter.run(bins, new Object[] {a, fc, rows, 37}, 4);
            for (int k = 0; k < 4; k++) {
                double[] terms = new double[a.length];
                for (int i = 0; i < a.length; i++) {
                    terms[i] = a[i] * (k + 1);
                }
                assertEquals(fe[k], fc[k], bound(terms, 0x1p-24), "bins c[" + k + "] rows=" + rows);
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
            } else if (s instanceof Stmt.If i) {
                n += atomics(i.then()) + atomics(i.otherwise());
            }
        }
        return n;
    }
}
