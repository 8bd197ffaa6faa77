package org.acc4j.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver library's cache: where it is, that it is written once, atomically, and rewritten when it differs. */
class DriverLibraryTest {
    @TempDir
    Path dir;

    @Test
    void theCacheFolderFollowsXdgElseHome() {
        String v = DriverLibrary.version();
        assertEquals(Path.of("/c/acc4j", v), DriverLibrary.folder(Map.of("XDG_CACHE_HOME", "/c"), "/home/u"));
        assertEquals(Path.of("/home/u/.cache/acc4j", v), DriverLibrary.folder(Map.of(), "/home/u"));
        assertEquals(Path.of("/home/u/.cache/acc4j", v), DriverLibrary.folder(Map.of("XDG_CACHE_HOME", "rel"), "/home/u"),
                "a relative XDG_CACHE_HOME is ignored, as the XDG specification says");
    }

    @Test
    void writtenOnceThenReused() throws IOException {
        Path folder = dir.resolve("acc4j/1.0");
        byte[] lib = {1, 2, 3, 4};
        Path file = DriverLibrary.cached(folder, "libX.so", lib);
        assertEquals(folder.resolve("libX.so"), file);
        assertArrayEquals(lib, Files.readAllBytes(file));
        FileTime old = FileTime.fromMillis(0);
        Files.setLastModifiedTime(file, old);
        DriverLibrary.cached(folder, "libX.so", lib);
        assertEquals(old, Files.getLastModifiedTime(file), "the same bytes are not written again");
        assertEquals(List.of(file), list(folder), "no partial files are left");
    }

    @Test
    void rewrittenWhenTheBytesDiffer() throws IOException {
        Path folder = dir.resolve("acc4j/1.0");
        DriverLibrary.cached(folder, "libX.so", new byte[] {1, 2, 3});
        Path file = DriverLibrary.cached(folder, "libX.so", new byte[] {1, 2, 4});
        assertArrayEquals(new byte[] {1, 2, 4}, Files.readAllBytes(file));
        assertEquals(List.of(file), list(folder));
    }

    @Test
    void aFolderThatCannotBeWrittenFails() throws IOException {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        assertThrows(IOException.class, () -> DriverLibrary.cached(file.resolve("acc4j"), "libX.so", new byte[] {1}));
    }

    private static List<Path> list(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.toList();
        }
    }
}
