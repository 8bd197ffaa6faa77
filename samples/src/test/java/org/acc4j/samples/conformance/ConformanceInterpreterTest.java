package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.Ptxas;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.TestRuntime;
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
    static final Sweep.Rewritten LOADER = Sweep.interpreting();

    static List<Sweep.Case> cases() {
        return Sweep.cases().stream().filter(c -> !c.large()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void interpretedSitesMatchPlainJava(Sweep.Case c) throws Exception {
        assertNull(Sweep.check(c, LOADER));
        assertTrue(LOADER.warnings.isEmpty(), () -> "the rewriter warned: " + LOADER.warnings);
    }

    /**
     * The nests that stay on the host, each with the documented reason (method, line and construct in its text);
     * every other nest of the sweep has a device path.
     */
    @Test
    void onlyTheDocumentedLimitsStayOnTheHost() throws Exception {
        Map<String, String> expected = new TreeMap<>(Map.of(
                "Constructs.longIndex", "the subscript of b at line 129 is not linear in the loop indices; if its "
                        + "iterations are independent, mark the index @Loop(independent = true)",
                "NumericsStyle.sor", "g is written and also accessed at another subscript (line 29 and line 29)",
                "Constructs.indexAfterLoop", "the variable i is set inside the parallel loop and read after it",
                "Constructs.throwInNest", "a throw inside a loop (the nest runs on the host, where Java "
                        + "throws it)"));
        Map<String, String> got = new TreeMap<>();
        Sweep.Rewritten loader = new Sweep.Rewritten(p -> {
            for (MethodPlan.Nest n : p.nests()) {
                if (!n.offloaded()) {
                    got.merge(p.displayName(), String.join("; ", n.reasons()), (x, y) -> x + " | " + y);
                }
            }
            return 0;
        }, TestRuntime.NAME);
        for (Sweep.Case c : Sweep.cases()) {
            Class.forName(c.owner().getName(), true, loader);
        }
        Class.forName(Constructs.Grid.class.getName(), true, loader);
        Class.forName(Constructs.Scaled.class.getName(), true, loader);
        assertEquals(expected.keySet(), got.keySet(), () -> "nests on the host: " + got);
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertTrue(got.get(e.getKey()).contains(e.getValue()), () -> e.getKey() + ": " + got.get(e.getKey()));
            // each reason names its line
            assertTrue(got.get(e.getKey()).matches("line \\d+: .*"), () -> e.getKey() + ": " + got.get(e.getKey()));
        }
    }

    /** Sites the interpreter declined at run time: only aliased or null arrays, and red-black SOR's unproven strides. */
    @Test
    void onlyAliasedArraysAndUnprovenStridesRunOnTheHostAtRunTime() throws Exception {
        for (Sweep.Case c : cases()) {
            assertNull(Sweep.check(c, LOADER));
        }
        List<String> declined = TestRuntime.declined();
        for (String d : declined) {
            assertTrue(d.startsWith("Constructs.addInto ") || d.startsWith("Constructs.shiftInPlace ")
                    || d.startsWith("Constructs.nullArray ") || d.startsWith("Constructs.rowSums ")
                    || d.startsWith("NumericsStyle.sorRedBlack "), d);
        }
        assertTrue(declined.stream().anyMatch(d -> d.startsWith("Constructs.nullArray ")), declined::toString);
    }

    @Test
    void everySitesKernelsAssemble() throws Exception {
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (Sweep.Case c : Sweep.cases()) {
            Class.forName(c.owner().getName(), true, LOADER);
        }
        List<MethodPlan> plans = TestRuntime.plans();
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
