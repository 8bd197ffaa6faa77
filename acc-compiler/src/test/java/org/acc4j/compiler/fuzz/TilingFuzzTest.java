package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.junit.jupiter.api.Test;

/**
 * The fuzzer's transpose and matmul shapes (sizes around the tiles' edges, empty and single ranges, transposed
 * operands, arrays one element short): each compiled, assembled and run on the interpreter against plain Java; most
 * must take the tiled kernel.
 */
class TilingFuzzTest {
    @Test
    void transposeAndMatmulShapesMatchPlainJava() throws Exception {
        List<Nest> shapes = new ArrayList<>();
        for (long s = 1; shapes.size() < 120 && s < 100_000; s++) {
            Nest n = NestGenerator.generate(s, NestGenerator.Options.ALL);
            if (n.features().stream().anyMatch(f -> f.startsWith("tiling-"))) {
                shapes.add(n);
            }
        }
        Harness.Tally tally = new Harness.Tally();
        java.nio.file.Path ptxas = org.acc4j.compiler.Ptxas.find();
        int tiled = 0;
        TreeMap<String, Integer> kinds = new TreeMap<>();
        for (int k = 0; k < shapes.size(); k += 40) {
            List<Nest> part = shapes.subList(k, Math.min(shapes.size(), k + 40));
            String cls = "org.acc4j.fuzz.TilingShapes" + k;
            StringBuilder src = new StringBuilder("package org.acc4j.fuzz;\n\nimport org.acc4j.Kernels;\nimport org.acc4j.Loop;\n\n"
                    + "public final class TilingShapes" + k + " {\n");
            part.forEach(n -> src.append(n.source()).append('\n'));
            src.append("}\n");
            Javac.Loader loader = new Javac.Loader(Javac.compile(cls, src.toString()), Fuzz.class.getClassLoader());
            Class<?> c = loader.loadClass(cls);
            byte[] bytes = loader.getResourceAsStream(cls.replace('.', '/') + ".class").readAllBytes();
            for (Nest n : part) {
                tally.add(n, Harness.interpret(n, Fuzz.method(c, n), bytes, ptxas));
                Compiler.Result r = Compiler.compile(bytes, n.method(), n.descriptor(), 90);
                if (r instanceof Compiler.Offload o) {
                    KernelPlan.Unchecked u = o.method().kernels().get(0).unchecked();
                    if (u != null && u.tiled() != null) {
                        tiled++;
                        kinds.merge(u.tiled().getClass().getSimpleName(), 1, Integer::sum);
                    }
                }
            }
        }
        System.out.print("fuzz (tiling shapes): " + tally.summary() + "  tiled kernels: " + kinds + "\n");
        assertTrue(tally.failures.isEmpty(), tally::summary);
        assertTrue(tiled > shapes.size() * 3 / 4, () -> "too few shapes tiled: " + kinds + " of " + shapes.size());
        assertTrue(kinds.getOrDefault("Transpose", 0) > 10 && kinds.getOrDefault("Matmul", 0) > 10, kinds::toString);
    }
}
