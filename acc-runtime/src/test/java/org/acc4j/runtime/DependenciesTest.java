package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The runtime's dependencies point one way: it reads no class file itself (no ASM) and takes what it launches from
 * the compiler's plans. Scans the runtime's main sources for references to ASM and to the compiler's IR.
 */
class DependenciesTest {
    private static final Path SOURCES = Path.of("src/main/java/org/acc4j/runtime");

    private static List<Path> sources() throws IOException {
        assertTrue(Files.isDirectory(SOURCES), () -> SOURCES.toAbsolutePath() + " is not the runtime's sources");
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static String name(Path file) {
        return SOURCES.relativize(file).toString().replace('\\', '/');
    }

    @Test
    void noAsm() throws IOException {
        Set<String> using = new TreeSet<>();
        for (Path f : sources()) {
            if (Files.readString(f).contains("org.objectweb.asm")) {
                using.add(name(f));
            }
        }
        assertEquals(Set.of(), using, "the runtime reads class files only through the compiler");
    }

    /**
     * The compiler hands the runtime launch plans ({@code org.acc4j.compiler.plan}): no runtime file names the IR, nor
     * the multicore backend's bytecode generator, so the runtime evaluates no IR at a launch itself.
     */
    @Test
    void noCompilerIr() throws IOException {
        Set<String> using = new TreeSet<>();
        for (Path f : sources()) {
            String text = Files.readString(f);
            if (text.contains("org.acc4j.compiler.ir") || text.contains("org.acc4j.compiler.jvm")) {
                using.add(name(f));
            }
        }
        assertEquals(Set.of(), using, "files of the runtime that refer to the compiler's IR or its JVM backend");
    }
}
