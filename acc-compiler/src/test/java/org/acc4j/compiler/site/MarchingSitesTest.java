package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.Ptxas;
import org.acc4j.compiler.fixtures.MarchingKernels;
import org.junit.jupiter.api.Test;

/**
 * Stencils planned as the agent plans them (each nest outlined into a method of its own, whose scalar parameters are
 * locals the device prologue copies) get the marched variant, which assembles with ptxas.
 */
class MarchingSitesTest {
    @Test
    void outlinedStencilsAreMarched() throws Exception {
        // 3D nests are kept at one point per thread on the pass's mapping, 2D ones marched
        for (String[] k : new String[][] {{"sevenPoint", "one point per thread in blocks of 64x2x2 threads over i, j and k"},
            {"thirteenPoint", "one point per thread in blocks of 64x2x2 threads over k, j and i"},
            {"fivePoint", "a is read at i-1, i, i+1"}}) {
            MethodPlan plan = SitesTest.plan(MarchingKernels.class, k[0]);
            assertEquals(1, plan.sites().size(), plan::toString);
            CompiledMethod m = plan.sites().get(0).compiled().method();
            String report = String.join("\n", m.report());
            KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
            assertTrue(u != null && u.marched() != null && report.contains(k[1]), report);
            Path ptxas = Ptxas.find();
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, u.entry(), u.ptx()), u.ptx());
            }
        }
    }
}
