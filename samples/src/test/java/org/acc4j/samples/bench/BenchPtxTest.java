package org.acc4j.samples.bench;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.acc4j.compiler.Ptxas;
import org.junit.jupiter.api.Test;

/** The benchmarks' hand-written PTX assembles for the H100 ({@code ptxas -arch=sm_90}), as generated PTX must. */
class BenchPtxTest {
    @Test
    void theRawKernelAssembles() throws Exception {
        Path ptxas = Ptxas.find();
        assumeTrue(ptxas != null, "ptxas is not on the PATH");
        assertNull(Ptxas.assemble(ptxas, "add_one", LaunchBench.PTX));
        // the first-call benchmark's modules: the same kernel with another constant and a comment
        assertNull(Ptxas.assemble(ptxas, "add_k", LaunchBench.PTX.replace("0d3FF0000000000000",
                String.format("0d%016X", Double.doubleToLongBits(3.0))) + "// salt module 2\n"));
    }

    @Test
    void theJacobiProbesKernelsAssemble() throws Exception {
        Path ptxas = Ptxas.find();
        assumeTrue(ptxas != null, "ptxas is not on the PATH");
        for (String[] k : new String[][] {{"jacobi-baseline.ptx", "jacobi_baseline"}, {"jacobi-hand.ptx", "jacobi"}}) {
            String ptx;
            try (java.io.InputStream in = JacobiKernels.class.getResourceAsStream(k[0])) {
                ptx = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            }
            assertNull(Ptxas.assemble(ptxas, k[1], ptx), k[0]);
        }
    }
}
