package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Nvcc;
import org.acc4j.compiler.cudac.CudaCRenderer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C rendering of the fuzzer's random nests (casts, shifts, division, ternaries, Math calls, 2D arrays,
 * reductions, collapse, downward and strided loops) compiles with nvcc; skipped, saying so, without nvcc or javac.
 */
class FuzzRenderingTest {
    @Test
    void renderingsOfRandomNestsCompileWithNvcc() throws Exception {
        Path nvcc = Nvcc.find();
        Assumptions.assumeTrue(nvcc != null, "nvcc is not on the PATH: CUDA C renderings not compiled");
        Assumptions.assumeTrue(Fuzz.javacAvailable(), "no javac in this runtime: no fuzz nests");
        Map<String, String> units = new LinkedHashMap<>();
        Harness.Tally tally = new Harness.Tally();
        for (long s = 1; s <= 200; s += Fuzz.BATCH) {
            Batch b = Batch.of(s, Fuzz.BATCH, FuzzTest.CI);
            Javac.Loader loader = Fuzz.load(b, tally);
            assertTrue(loader != null, tally::summary);
            byte[] bytes = loader.getResourceAsStream(b.className().replace('.', '/') + ".class").readAllBytes();
            for (Nest n : b.nests()) {
                if (Harness.compile(n, bytes) instanceof CompiledMethod m) {
                    for (CudaCRenderer.Rendering r : CudaCRenderer.render(m, null)) {
                        units.put(r.entry(), r.source());
                    }
                }
            }
        }
        assertTrue(units.size() > 100, "rendered " + units.size() + " kernels");
        String ptx = Nvcc.compileTogether(nvcc, units);
        for (String entry : units.keySet()) {
            assertTrue(ptx.contains(".visible .entry " + entry + "("), entry);
        }
    }
}
