package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.junit.jupiter.api.Test;

/**
 * The fuzzer's stencil shapes ({@link StencilShapes}: flat 2D and 3D stencils in any loop order, taps along one axis,
 * blurs with a weights table, rows, and their edges: sizes around the marching chunk and the blocks, empty and single
 * ranges, in-place sweeps, aliased arguments, halos that leave the array, arrays one element short): each compiled,
 * assembled with {@code ptxas} and run on the interpreter against plain Java, every element bit for bit. Counts the
 * variant each kernel gets; every marchable shape must be marched. CI runs the first 120 stencil nests;
 * {@code -Dacc4j.fuzz.stencils=1000} runs more (about 2 minutes).
 */
class StencilFuzzTest {
    /** The first {@code count} stencil nests from seed 1 on. */
    static List<Nest> shapes(int count) {
        List<Nest> shapes = new ArrayList<>();
        for (long s = 1; shapes.size() < count && s < 1_000_000; s++) {
            Nest n = NestGenerator.generate(s, NestGenerator.Options.ALL);
            if (n.features().stream().anyMatch(f -> f.startsWith("stencil-"))) {
                shapes.add(n);
            }
        }
        return shapes;
    }

    /** The variant the compiler made for the first kernel of {@code bytes}'s method of {@code n}. */
    static String variant(Nest n, byte[] bytes) {
        Compiler.Result r = Compiler.compile(bytes, n.method(), n.descriptor(), Harness.SM);
        if (!(r instanceof Compiler.Offload o)) {
            return "host";
        }
        KernelPlan.Unchecked u = o.method().kernels().get(0).unchecked();
        return u == null ? "checked" : u.tiled() != null ? "tiled-" + u.tiled().getClass().getSimpleName()
                : u.marched() != null ? "marched" : "unchecked";
    }

    @Test
    void stencilShapesMatchPlainJavaAndMarchWhereTheyCan() throws Exception {
        List<Nest> shapes = shapes(Integer.getInteger("acc4j.fuzz.stencils", 120));
        Harness.Tally tally = new Harness.Tally();
        java.nio.file.Path ptxas = org.acc4j.compiler.Ptxas.find();
        // shape feature -> variant -> nests
        Map<String, Map<String, Integer>> variants = new TreeMap<>();
        List<Long> notMarched = new ArrayList<>();
        int marchable = 0;
        for (int k = 0; k < shapes.size(); k += 40) {
            Batch b = new Batch(Batch.PACKAGE + ".StencilShapes" + k, shapes.subList(k, Math.min(shapes.size(), k + 40)));
            Javac.Loader loader = new Javac.Loader(Javac.compile(b.className(), b.source()), Fuzz.class.getClassLoader());
            Class<?> c = loader.loadClass(b.className());
            byte[] bytes = loader.getResourceAsStream(b.className().replace('.', '/') + ".class").readAllBytes();
            for (Nest n : b.nests()) {
                tally.add(n, Harness.interpret(n, Fuzz.method(c, n), bytes, ptxas));
                String v = variant(n, bytes);
                for (String f : n.features()) {
                    if (f.matches("stencil-(2d|3d|line|blur|rows|rank3)")) {
                        variants.computeIfAbsent(f, x -> new TreeMap<>()).merge(v, 1, Integer::sum);
                    }
                }
                if (n.features().contains("stencil-marchable")) {
                    marchable++;
                    if (!v.equals("marched")) {
                        notMarched.add(n.seed());
                    }
                }
            }
        }
        System.out.print("fuzz (stencil shapes): " + tally.summary() + "  variants by shape: " + variants
                + "\n  marchable: " + marchable + ", not marched: " + notMarched + "\n");
        assertTrue(tally.failures.isEmpty(), tally::summary);
        int m = marchable;
        assertTrue(marchable > shapes.size() / 4 && notMarched.isEmpty(),
                () -> "marchable shapes not marched (seeds " + notMarched + ") of " + m + ": " + variants);
        for (String f : List.of("stencil-2d", "stencil-3d", "stencil-blur", "stencil-rows", "stencil-line")) {
            Map<String, Integer> by = variants.getOrDefault(f, Map.of());
            int all = by.values().stream().mapToInt(Integer::intValue).sum();
            int host = by.getOrDefault("host", 0) + by.getOrDefault("checked", 0);
            assertTrue(all >= 5 && host * 4 < all, () -> f + ": too few offloaded with its bounds proven on the host: "
                    + by);
        }
    }
}
