package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Golden;
import org.acc4j.compiler.Nvcc;
import org.acc4j.compiler.cudac.CudaCRenderer;
import org.acc4j.compiler.cudac.KernelDump;
import org.acc4j.compiler.cudac.SourceText;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CUDA C rendering of every sample kernel compiles with {@code nvcc -arch=sm_90} (skipped, saying so, without
 * nvcc); a few renderings, with the samples' source lines, against golden files; and the stored PTX of the
 * kernels the GPU test runs is nvcc's output for the current rendering.
 */
class CudaRenderingTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden/cuda");
    static final List<Path> SOURCES = List.of(Path.of("src/main/java"));

    @Test
    void everySampleKernelCompilesWithNvcc() throws Exception {
        Path nvcc = Nvcc.find();
        Assumptions.assumeTrue(nvcc != null, "nvcc is not on the PATH: CUDA C renderings not compiled");
        Map<String, String> units = new LinkedHashMap<>();
        int offloaded = 0;
        for (RenderedKernels.Method m : RenderedKernels.all()) {
            CompiledMethod c = RenderedKernels.compile(m);
            if (c == null) {
                continue;
            }
            offloaded++;
            SourceText source = KernelDump.find(SOURCES, c.body().owner(), c.body().sourceFile());
            for (CudaCRenderer.Rendering r : CudaCRenderer.render(c, source)) {
                units.put(r.entry(), r.source());
            }
        }
        assertTrue(offloaded >= 90, "only " + offloaded + " sample methods offloaded");
        String ptx = Nvcc.compileTogether(nvcc, units);
        for (String entry : units.keySet()) {
            assertTrue(ptx.contains(".visible .entry " + entry + "("), entry + " has no entry of its name");
        }
    }

    @ParameterizedTest
    // the dot product's rendering is pinned once, in the compiler's golden files (ReductionKernels.dot)
    @ValueSource(strings = {"Jacobi.sweep", "Dgemm.multiply2dMap2_4", "Laplacian.laplacianMap3_1", "Reduce.collapsedSum"})
    void matchesGolden(String which) throws Exception {
        CompiledMethod c = RenderedKernels.compile(RenderedKernels.named(which));
        assertNotNull(c, which + " stays on the host");
        SourceText source = KernelDump.find(SOURCES, c.body().owner(), c.body().sourceFile());
        for (CudaCRenderer.Rendering r : CudaCRenderer.render(c, source)) {
            Golden.check(GOLDEN, r.entry() + ".cu", r.source());
        }
    }

    /** The GPU test's PTX was made by nvcc from the rendering as it is now; with -Dacc4j.updateGolden=true, remade. */
    @ParameterizedTest
    @ValueSource(strings = {"Jacobi.sweep", "Jacobi.sweep2dMap2_4", "Dgemm.multiply", "Dgemm.multiply2dMap2_4",
        "Laplacian.laplacianMap3_1", "Reduce.dot", "Reduce.minFloat", "Reduce.sumInt", "Reduce.collapsedSum",
        "Reduce.maxNorm"})
    void storedPtxIsNvccsOutputForTheCurrentRendering(String which) throws Exception {
        assertTrue(RenderedKernels.ON_THE_GPU.contains(which), which);
        CompiledMethod c = RenderedKernels.compile(RenderedKernels.named(which));
        assertNotNull(c, which + " stays on the host");
        for (CudaCRenderer.Rendering r : CudaCRenderer.render(c, SourceText.NONE)) {
            String header = RenderedKernels.HEADER + RenderedKernels.sha256(r.source()) + "\n";
            Path file = RenderedKernels.STORED.resolve(r.entry() + ".ptx");
            if (Golden.updating()) {
                Path nvcc = Nvcc.find();
                Assumptions.assumeTrue(nvcc != null, "nvcc is not on the PATH: the stored PTX cannot be remade");
                String ptx = Nvcc.compile(nvcc, Map.of(r.entry(), r.source())).get(r.entry());
                Files.createDirectories(RenderedKernels.STORED);
                Files.writeString(file, header + ptx, StandardCharsets.UTF_8);
                continue;
            }
            assertTrue(Files.exists(file), "no stored PTX " + file.toAbsolutePath()
                    + "; make it with nvcc: mvn test -Dacc4j.updateGolden=true");
            String stored = Files.readString(file, StandardCharsets.UTF_8);
            assertTrue(stored.startsWith(header), r.entry() + ": the stored PTX " + file.toAbsolutePath()
                    + " was compiled from another rendering; remake it with nvcc: mvn test -Dacc4j.updateGolden=true");
            assertTrue(stored.contains(".visible .entry " + r.entry() + "("), r.entry());
        }
    }
}
