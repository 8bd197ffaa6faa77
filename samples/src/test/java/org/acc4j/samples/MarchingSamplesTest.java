package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Planner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The samples' 3D stencils with no hints (7-point, Laplacian, 13-point wave) get the marching pass's variant (one
 * point per thread on its mapping; the 2D blur marched), both compiled whole and planned as the agent plans them
 * (each nest outlined into a method of its own); it assembles with ptxas, and the interpreter's run of the variant
 * matches plain Java bit for bit on every element.
 */
class MarchingSamplesTest {
    static Stream<MarchingCases.Case> cases() {
        return Stream.concat(MarchingCases.cases(new int[][] {{3, 3, 3}, {5, 6, 40}, {37, 9, 19}, {6, 35, 7},
            {18, 18, 18}}).stream(), MarchingCases.windows(new int[][] {{5, 5}, {1, 9}, {9, 1}, {4, 4}, {21, 133},
            {70, 37}, {5, 300}}).stream());
    }

    /** The 3D stencils are kept at one point per thread on the marching pass's mapping; the 2D blur is marched. */
    private static final String[][] STENCILS = {{"Stencil", "stencil", "([D[DIIIDD)V",
        "one point per thread in blocks of 64x2x2 threads over i, j and k"},
        {"Laplacian", "laplacian", "([D[DIIIDDD)V", "one point per thread in blocks of 64x2x2 threads over k, j and i"},
        {"Wave13pt", "wave", "([D[D[DIIIDDD)V", "one point per thread in blocks of 64x2x2 threads over k, j and i"},
        {"Gaussblur", "blur", "([D[D[DII)V", "marched along i with its values in registers: a is read at i-2, i-1, i, "
            + "i+1, i+2, and in 4 more columns of a"}};

    private static Class<?> owner(String name) {
        return switch (name) {
            case "Stencil" -> Stencil.class;
            case "Laplacian" -> Laplacian.class;
            case "Gaussblur" -> Gaussblur.class;
            default -> Wave13pt.class;
        };
    }

    @Test
    void theDefaultStencilsAreMarchedAndAssemble() throws Exception {
        for (String[] k : STENCILS) {
            CompiledMethod m = SampleKernelsTest.compile(owner(k[0]), k[1], k[2]);
            String report = String.join("\n", m.report());
            assertTrue(report.contains(k[3]), report);
            KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
            assertNotNull(u.marched(), report);
            assertFalse(u.ptx().contains("fma."), u.ptx());
            assembles(u);
        }
        // the user's mappings stand
        CompiledMethod mapped = SampleKernelsTest.compile(Stencil.class, "stencilMap3_1", "([D[DIIIDD)V");
        KernelPlan.Unchecked u = mapped.kernels().get(0).unchecked();
        assertTrue(u == null || u.marched() == null, String.join("\n", mapped.report()));
    }

    @Test
    void theOutlinedNestsAreMarched() throws Exception {
        for (String[] k : STENCILS) {
            Class<?> c = owner(k[0]);
            // by name: the samples' stencil methods are not overloaded (the test sees no ASM types: under the package
            // build the agent's jar relocates them)
            MethodPlan plan = Planner.plan(bytes(c.getName().replace('.', '/')), k[1], MarchingSamplesTest::bytes);
            assertTrue(plan.sites().size() == 1, plan.toString());
            CompiledMethod m = plan.sites().get(0).compiled().method();
            String report = String.join("\n", m.report());
            KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
            assertTrue(u != null && u.marched() != null && report.contains(k[3]), report);
            assembles(u);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theInterpretedMarchedKernelMatchesJava(MarchingCases.Case c) throws Exception {
        CompiledMethod m = SampleKernelsTest.compile(c.owner(), c.name(), c.descriptor());
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        for (int maxBlocks : new int[] {2, 1000}) {
            Object[] args = c.copy();
            try {
                KernelInterpreter.run(m, args, maxBlocks);
            } catch (KernelInterpreter.HostInstead e) {
                // a range of one point: the check that the writes do not overlap may keep the call on the host
                assertTrue(List.of(c.args()).contains(3) || c.name().equals("blur") && ((int) c.args()[3] < 5
                        || (int) c.args()[4] < 5), e::getMessage);
                continue;
            }
            MarchingCases.assertSame(plain, args, c.toString());
        }
    }

    private static void assembles(KernelPlan.Unchecked u) throws Exception {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path ptxas = Path.of(dir, "ptxas");
            if (Files.isExecutable(ptxas)) {
                Path d = Files.createTempDirectory("acc4j-marching");
                Path in = d.resolve(u.entry() + ".ptx");
                Files.writeString(in, u.ptx());
                Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", "-o", d.resolve("k.cubin").toString(),
                        in.toString()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                assertTrue(p.waitFor() == 0, out);
                return;
            }
        }
    }

    static byte[] bytes(String internalName) {
        try (InputStream in = MarchingSamplesTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }
}
