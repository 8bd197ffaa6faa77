package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.acc4j.compiler.fixtures.ReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Var;
import org.junit.jupiter.api.Test;

/** Reductions: what the compiler finds, what it refuses and why, the kernels it writes, and host values. */
class ReductionsTest {
    @Test
    void dotIsAnUnmarkedSumReportedAndAssembled() throws Exception {
        CompiledMethod m = CompilerTest.offload(ReductionKernels.class, "dot");
        KernelPlan k = m.kernels().get(0);
        assertEquals(List.of("reduction(+:s)"), k.region().reductions().stream().map(Reduction::toString).toList());
        assertTrue(m.report().stream().anyMatch(l -> l.contains("reduction(+:s)")), m.report()::toString);
        Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
        double[] a = {1, 2, 3, 4, 5};
        double[] b = {0.5, 0.25, 2, -1, 3};
        assertEquals(ReductionKernels.dot(a, b, 5), (Double) KernelInterpreter.run(m, new Object[] {a, b, 5}, 2));
    }

    @Test
    void aRecurrenceIsNotAReduction() {
        Diagnostic d = CompilerTest.host(ReductionKernels.class, "recurrence");
        assertTrue(d.construct().contains("variable s is set inside a parallel loop and returned (only a reduction's"),
                d.construct());
    }

    @Test
    void aRunningSumThatIsStoredIsNotAReduction() {
        // a double scan, which regroups its sums: only with @Kernels(relaxed = true)
        Diagnostic d = CompilerTest.host(ReductionKernels.class, "prefix");
        assertTrue(d.construct().contains("scan: inclusive + over a into out of double values"), d.construct());
    }

    @Test
    void aClauseWithTheWrongOperatorIsRefused() {
        Diagnostic d = CompilerTest.host(ReductionKernels.class, "wrongClause");
        assertTrue(d.construct().contains("reduction(max:s)") && d.construct().contains("accumulated with +"),
                d.construct());
    }

    @Test
    void aValueComputedFromAReductionIsAHostValueOfTheNextKernel() {
        CompiledMethod m = CompilerTest.offload(ReductionKernels.class, "normalize");
        assertEquals(2, m.kernels().size());
        assertEquals(List.of("inv"), m.kernels().get(1).region().hostVars().stream().map(Var::name).toList());
        double[] a = new java.util.Random(5).doubles(1000, -1, 1).toArray();
        double[] plain = a.clone();
        ReductionKernels.normalize(plain, plain.length);
        KernelInterpreter.run(m, new Object[] {a, a.length}, 4);
        for (int i = 0; i < a.length; i++) {
            assertEquals(plain[i], a[i], Math.abs(plain[i]) * 1e-13, "element " + i);
        }
    }

    @Test
    void anInitialValueReadFromAnArrayStaysOnTheHost() {
        Diagnostic d = CompilerTest.host(ReductionKernels.class, "seededByElement");
        assertTrue(d.construct().contains("array element read outside the loops"), d.construct());
    }
}
