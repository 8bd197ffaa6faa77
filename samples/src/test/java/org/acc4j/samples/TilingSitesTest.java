package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.stream.Stream;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.PlanReport;
import org.acc4j.compiler.site.Planner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The samples' transpose and DGEMM methods planned as the agent plans them: each loop nest outlined into a method
 * of its own ({@link Planner}), whose device prologue copies the scalar parameters into locals. The site's kernel is
 * the tiled one, the plan's report says so, its PTX assembles, and the interpreter's run of the site's kernels
 * with the live values of the call matches plain Java bit for bit on every element.
 */
class TilingSitesTest {
    static Stream<TilingCases.Case> cases() {
        return Stream.concat(TilingCases.transposes(new int[][] {{33, 65}, {100, 37}, {1, 70}, {64, 96}}).stream(),
                TilingCases.matmuls(new int[][] {{65, 67, 33}, {70, 1, 3}, {130, 70, 17}, {64, 128, 16}}).stream());
    }

    static byte[] bytes(String internalName) {
        try (InputStream in = TilingSitesTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The plan of method {@code name} of {@code c}, from its class file's bytes: in the full build the agent's jar,
     * whose copy of ASM is relocated, comes first on this module's test class path, so no ASM type is passed.
     */
    static MethodPlan plan(Class<?> c, String name) throws Exception {
        return Planner.plan(bytes(c.getName().replace('.', '/')), name, TilingSitesTest::bytes);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theOutlinedNestIsTiledAndMatchesJava(TilingCases.Case c) throws Exception {
        MethodPlan p = plan(c.owner(), c.name());
        String report = String.join("\n", PlanReport.lines(p));
        assertEquals(1, p.sites().size(), report);
        MethodPlan.Site site = p.sites().get(0);
        assertNotNull(site.compiled(), report);
        CompiledMethod compiled = site.compiled().method();
        KernelPlan.Unchecked tiled = compiled.kernels().get(0).unchecked();
        assertNotNull(tiled, report);
        assertNotNull(tiled.tiled(), "the outlined nest is not tiled:\n" + report);
        assertTrue(report.contains(c.owner() == Transpose.class ? "tiled for shared memory: in"
                : "tiled for shared memory and registers"), report);

        // the site's values: its live-ins, taken from the call's arguments by slot (static methods, one slot each)
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        for (CompiledMethod m : TilingCases.everyTile(compiled)) {
            KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
            TilingSamplesTest.assemble(u.entry(), u.ptx());
            for (int maxBlocks : new int[] {2, 1000}) {
                Object[] args = c.copy();
                List<MethodPlan.Local> ins = site.liveIns();
                Object[] values = new Object[site.values()];
                for (int k = 0; k < ins.size(); k++) {
                    values[k] = args[ins.get(k).slot()];
                }
                KernelInterpreter.run(m, source -> {
                    if (source instanceof ArrayRef.Parameter q) {
                        return values[q.index()];
                    }
                    throw new AssertionError("the samples read no field: " + source.name());
                }, values, maxBlocks);
                TilingSamplesTest.assertSame(plain, args, c + " with at most " + maxBlocks + " blocks");
            }
        }
    }
}
