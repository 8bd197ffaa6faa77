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

    /**
     * The runtime's files that still read the compiler's IR at launch (argument binding, grid computation, launch
     * checks, error sites); no other file may, and each of these must still need it (the list only shrinks).
     */
    private static final Set<String> STILL_READING_IR = Set.of(
            "launch/LaunchChecks.java",
            "launch/KernelErrors.java",
            "launch/Launcher.java",
            "launch/Multicore.java",
            "launch/OffloadedMethod.java",
            "launch/Offloader.java",
            "launch/Parameters.java",
            "launch/ReductionScratch.java",
            "launch/RowLaneChooser.java",
            "launch/Sources.java");

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

    @Test
    void compilerIrOnlyWhereListed() throws IOException {
        Set<String> using = new TreeSet<>();
        for (Path f : sources()) {
            if (Files.readString(f).contains("org.acc4j.compiler.ir")) {
                using.add(name(f));
            }
        }
        assertEquals(new TreeSet<>(STILL_READING_IR), using, "files of the runtime that refer to org.acc4j.compiler.ir");
    }
}
