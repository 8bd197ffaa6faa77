package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.cudac.CudaCRenderer;
import org.acc4j.compiler.fixtures.AtomicKernels;
import org.acc4j.compiler.fixtures.Kernels1D;
import org.acc4j.compiler.fixtures.NarrowKernels;
import org.acc4j.compiler.fixtures.Nests;
import org.acc4j.compiler.fixtures.ReductionKernels;
import org.acc4j.compiler.fixtures.SequentialLoops;
import org.acc4j.compiler.fixtures.StridedLoops;
import org.acc4j.compiler.ir.ErrorSite;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.tree.MethodNode;

/**
 * The CUDA C rendering of every fixture kernel (each mapping, 1D and 2D arrays, reductions): compiled with nvcc
 * when it is on the PATH, a few against golden files, and its structure checked against the plan.
 */
class CudaRenderingTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden/cuda");
    static final List<Class<?>> FIXTURES = List.of(Kernels1D.class, Nests.class, ReductionKernels.class,
            NarrowKernels.class, SequentialLoops.class, StridedLoops.class, AtomicKernels.class);

    /** Every offloaded kernel of the fixtures, rendered: entry to CUDA C. */
    static Map<String, String> renderAll() {
        Map<String, String> units = new LinkedHashMap<>();
        for (Class<?> c : FIXTURES) {
            byte[] bytes = TestClasses.bytes(c);
            for (MethodNode mn : TestClasses.node(c).methods) {
                if (PtxGoldenTest.isKernels(mn) && Compiler.compile(bytes, mn.name, mn.desc, 90) instanceof Compiler.Offload o) {
                    for (CudaCRenderer.Rendering r : CudaCRenderer.render(o.method(), null)) {
                        units.put(r.entry(), r.source());
                    }
                }
            }
        }
        return units;
    }

    @Test
    void everyFixtureKernelCompilesWithNvcc() throws Exception {
        Path nvcc = Nvcc.find();
        Assumptions.assumeTrue(nvcc != null, "nvcc is not on the PATH: CUDA C renderings not compiled");
        Map<String, String> units = renderAll();
        assertTrue(units.size() >= 25, "rendered " + units.size() + " kernels");
        String ptx = Nvcc.compileTogether(nvcc, units);
        for (String entry : units.keySet()) {
            assertTrue(ptx.contains(".visible .entry " + entry + "("), entry + " has no entry of its name");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"Nests.jacobiMap24", "Nests.collapsed", "Nests.dgemm2D", "Nests.stencilMap33",
        "ReductionKernels.dot", "Kernels1D.intOps", "NarrowKernels.upper2D", "NarrowKernels.booleans",
        "StridedLoops.butterfly"})
    void matchesGolden(String which) throws Exception {
        String[] parts = which.split("\\.");
        Class<?> c = FIXTURES.stream().filter(f -> f.getSimpleName().equals(parts[0])).findFirst().orElseThrow();
        CompiledMethod m = CompilerTest.offload(c, parts[1]);
        for (CudaCRenderer.Rendering r : CudaCRenderer.render(m, null)) {
            Golden.check(GOLDEN, r.entry() + ".cu", r.source());
        }
    }

    /** The signature has one parameter per plan parameter, in order; every bounds check and division is a site. */
    @Test
    void parametersAndSitesFollowThePlan() {
        CompiledMethod m = CompilerTest.offload(Nests.class, "jacobi2D");
        KernelPlan k = m.kernels().get(0);
        CudaCRenderer.Rendering r = CudaCRenderer.render(m.body(), k, null);
        String signature = r.source().substring(r.source().indexOf("__global__"), r.source().indexOf(")\n{"));
        assertEquals(k.params().size(), signature.split("\n").length - 1, signature);
        // a[i][j] = 0.25 * (b[i-1][j] + b[i+1][j] + b[i][j-1] + b[i][j+1]), plus b[i].length in the inner bound
        long rows = r.sites().stream().filter(s -> s.array() != null && !s.array().endsWith("[]")).count();
        long columns = r.sites().stream().filter(s -> s.array() != null && s.array().endsWith("[]")).count();
        assertEquals(6, rows, r.sites().toString());
        assertEquals(5, columns, r.sites().toString());
        assertTrue(r.sites().stream().allMatch(s -> s.kind() == ErrorSite.Kind.INDEX_OUT_OF_BOUNDS));
        for (int code = 1; code <= r.sites().size(); code++) {
            assertTrue(r.source().contains("acc_raise(err, " + code + ", "), "site " + code);
        }
    }

    @Test
    void sourceLinesAppearAsComments() {
        CompiledMethod m = CompilerTest.offload(Kernels1D.class, "saxpy");
        String cu = CudaCRenderer.render(m, line -> "LINE " + line + " TEXT").get(0).source();
        int line = m.kernels().get(0).region().loop().line();
        assertTrue(cu.contains("/* Kernels1D.java:" + line + "  LINE " + line + " TEXT"), cu);
    }
}
