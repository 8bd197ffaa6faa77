package org.acc4j.compiler.cudac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.Nests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dump directory: PTX with the Java source lines, CUDA C, the source path. */
class KernelDumpTest {
    static final Path SOURCES = Path.of("src/test/java");

    static CompiledMethod compile(Class<?> c, String name) {
        var mn = TestClasses.method(TestClasses.node(c), name);
        return ((Compiler.Offload) Compiler.compile(TestClasses.bytes(c), name, mn.desc, 90)).method();
    }

    @Test
    void writesAnnotatedPtxAndCudaC(@TempDir Path dir) throws Exception {
        CompiledMethod m = compile(Nests.class, "jacobiAuto");
        List<Path> files = KernelDump.write(dir, m, List.of(Path.of("no/such/dir"), SOURCES));
        KernelPlan k = m.kernels().get(0);
        List<Path> expected = new ArrayList<>(List.of(dir.resolve(k.entry() + ".ptx"), dir.resolve(k.entry() + ".cu")));
        if (k.unchecked() != null && k.unchecked().marched() != null) {
            // the marched sweep launched when the bounds proofs hold
            expected.add(dir.resolve(k.unchecked().entry() + ".ptx"));
        }
        assertEquals(expected, files);
        String ptx = Files.readString(files.get(0), StandardCharsets.UTF_8);
        List<String> source = Files.readAllLines(SOURCES.resolve("org/acc4j/compiler/fixtures/Nests.java"));
        int line = k.region().loop().line();
        // the loop's line and the body's line, each with its text, above the emitter's comment
        for (int n : new int[] {line, line + 1, line + 2}) {
            String marker = "\t// Nests.java:" + n + "  " + source.get(n - 1).strip() + "\n\t// Nests.java:" + n + ": ";
            assertTrue(ptx.contains(marker), "no source text for line " + n + " in\n" + ptx);
        }
        // only comment lines were added: without them it is the PTX that is loaded
        List<String> kept = new ArrayList<>();
        for (String l : ptx.split("\n", -1)) {
            if (!l.matches("\t// Nests\\.java:\\d+  .*")) {
                kept.add(l);
            }
        }
        assertEquals(k.ptx(), String.join("\n", kept));
        String cu = Files.readString(files.get(1), StandardCharsets.UTF_8);
        assertTrue(cu.contains("/* Nests.java:" + (line + 2) + "  " + source.get(line + 1).strip()), cu);
        assertTrue(cu.contains("extern \"C\" __global__ void " + k.entry() + "("), cu);
    }

    @Test
    void withoutTheSourceThePtxIsUnchanged(@TempDir Path dir) throws Exception {
        CompiledMethod m = compile(Nests.class, "jacobiAuto");
        List<Path> files = KernelDump.write(dir, m, List.of());
        assertEquals(m.kernels().get(0).ptx(), Files.readString(files.get(0), StandardCharsets.UTF_8));
    }

    @Test
    void sourcePathIsResolvedWithThePackage() {
        assertEquals(List.of(Path.of("a"), Path.of("b/c")), KernelDump.sourcePath("a" + java.io.File.pathSeparator + "b/c"));
        assertEquals(List.of(), KernelDump.sourcePath(null));
        SourceText t = KernelDump.find(List.of(SOURCES), "org/acc4j/compiler/fixtures/Nests", "Nests.java");
        assertEquals("package org.acc4j.compiler.fixtures;", t.line(1));
        assertNull(t.line(0));
        assertNull(t.line(100_000));
        assertEquals(SourceText.NONE, KernelDump.find(List.of(SOURCES), "org/acc4j/compiler/fixtures/Nests", null));
        assertEquals(SourceText.NONE, KernelDump.find(List.of(SOURCES), "org/other/Nests", "Nests.java"));
    }
}
