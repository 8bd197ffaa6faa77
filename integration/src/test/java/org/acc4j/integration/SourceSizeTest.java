package org.acc4j.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every main source file of every module stays under {@value #MAX_LINES} lines, so that a class keeps one job. */
class SourceSizeTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final int MAX_LINES = 800;

    @Test
    void noMainSourceFileIsTooLong() throws IOException {
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        for (Path sources : mainSourceFolders()) {
            try (Stream<Path> all = Files.walk(sources)) {
                for (Path f : all.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    files++;
                    int lines = Files.readAllLines(f).size();
                    if (lines > MAX_LINES) {
                        tooLong.add(ROOT.relativize(f) + ": " + lines + " lines");
                    }
                }
            }
        }
        assertTrue(files > 100, () -> "found only the main sources under " + ROOT);
        assertEquals(List.of(), tooLong, () -> "main source files over " + MAX_LINES + " lines:\n"
                + String.join("\n", tooLong));
    }

    /** Each module's {@code src/main/java}. */
    private static List<Path> mainSourceFolders() throws IOException {
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).sorted().toList();
        }
    }
}
