package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.Ptxas;
import org.acc4j.compiler.site.MethodPlan;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance sweep ({@link Sweep}) with each method rewritten into launch sites as the agent rewrites it and
 * each site's kernels run by the kernel interpreter (every thread of the kernel's mapping, with its race check):
 * every element equals plain Java's (the documented 1-ulp functions and reordered sums within their bounds). The
 * kernels of every site assemble with {@code ptxas -arch=sm_90}.
 */
class ConformanceInterpreterTest {
    static final Sweep.Rewritten LOADER = new Sweep.Rewritten(InterpretingRuntime::register,
            InterpretingRuntime.NAME);

    static List<Sweep.Case> cases() {
        return Sweep.cases();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void interpretedSitesMatchPlainJava(Sweep.Case c) throws Exception {
        assertNull(Sweep.check(c, LOADER));
        assertTrue(LOADER.warnings.isEmpty(), () -> "the rewriter warned: " + LOADER.warnings);
    }

    @Test
    void everySitesKernelsAssemble() throws Exception {
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (Sweep.Case c : Sweep.cases()) {
            Class.forName(c.owner().getName(), true, LOADER);
        }
        List<MethodPlan> plans;
        synchronized (InterpretingRuntime.class) {
            plans = new ArrayList<>(InterpretingRuntime.PLANS);
        }
        int assembled = 0;
        for (MethodPlan p : plans) {
            for (MethodPlan.Site s : p.sites()) {
                for (KernelPlan k : s.compiled().method().kernels()) {
                    assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), p.displayName() + " " + k.entry());
                    assembled++;
                    if (k.unchecked() != null) {
                        assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()),
                                p.displayName() + " " + k.unchecked().entry());
                        assembled++;
                    }
                }
            }
        }
        assertTrue(assembled >= 60, "kernels assembled: " + assembled);
    }
}
