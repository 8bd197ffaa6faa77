package org.acc4j.runtime.tune;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk cache of tuned block shapes: round trip, and every kind of unusable entry ignored and said once. */
class ShapeCacheTest {
    static final List<int[]> BLOCKS = TunerTest.BLOCKS;
    static final String DEVICE = "NVIDIA H100 80GB HBM3|driver 12040|sm_90";

    @Test
    void aWrittenEntryIsReadBackWholeAndNoTemporaryFileStays(@TempDir Path dir) throws Exception {
        List<String> warnings = new ArrayList<>();
        ShapeCache c = new ShapeCache(dir.resolve("tune"), DEVICE, warnings::add);
        assertNull(c.read("k1", "13x13", BLOCKS), "nothing yet");
        Path f = c.write("k1", "13x13", BLOCKS.get(2), "acc_sweep", "128x2x1 400.0 us (own), 64x4x1 380.0 us");
        assertEquals(c.file("k1", "13x13"), f);
        assertArrayEquals(BLOCKS.get(2), c.read("k1", "13x13", BLOCKS));
        // another size class, kernel or device has its own entry
        assertNull(c.read("k1", "12x13", BLOCKS));
        assertNull(c.read("k2", "13x13", BLOCKS));
        assertNull(new ShapeCache(dir.resolve("tune"), "NVIDIA A100|driver 12040|sm_80", warnings::add)
                .read("k1", "13x13", BLOCKS));
        assertNotEquals(c.file("k1", "13x13"), c.file("k1", "12x13"));
        // replaced in place
        c.write("k1", "13x13", BLOCKS.get(1), "acc_sweep", "");
        assertArrayEquals(BLOCKS.get(1), c.read("k1", "13x13", BLOCKS));
        try (Stream<Path> files = Files.list(dir.resolve("tune"))) {
            assertEquals(1, files.count(), "one entry, no temporary file");
        }
        assertEquals(List.of(), warnings);
        String text = Files.readString(f);
        assertTrue(text.startsWith(ShapeCache.MAGIC + "\ndevice " + DEVICE + "\nkernel k1\nclass 13x13\nblock 32 8 1\n"),
                text);
    }

    @Test
    void corruptAndForeignEntriesAreIgnoredAndSaidOnce(@TempDir Path dir) throws Exception {
        List<String> warnings = new ArrayList<>();
        ShapeCache c = new ShapeCache(dir, DEVICE, warnings::add);
        Path f = c.file("k1", "13x13");
        Files.write(f, new byte[] {0, 1, 2, (byte) 0xff, '\n'});
        assertNull(c.read("k1", "13x13", BLOCKS));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains(f.toString()) && warnings.get(0).contains("is ignored"), warnings.get(0));
        // an entry of another device under this name: foreign
        Files.writeString(f, ShapeCache.MAGIC + "\ndevice other\nkernel k1\nclass 13x13\nblock 32 8 1\n",
                StandardCharsets.UTF_8);
        assertNull(c.read("k1", "13x13", BLOCKS));
        // a block that is no candidate, and one that does not parse
        Files.writeString(f, ShapeCache.MAGIC + "\ndevice " + DEVICE + "\nkernel k1\nclass 13x13\nblock 7 7 7\n",
                StandardCharsets.UTF_8);
        assertNull(c.read("k1", "13x13", BLOCKS));
        Files.writeString(f, ShapeCache.MAGIC + "\ndevice " + DEVICE + "\nkernel k1\nclass 13x13\nblock x y\n",
                StandardCharsets.UTF_8);
        assertNull(c.read("k1", "13x13", BLOCKS));
        Files.writeString(f, ShapeCache.MAGIC + "\ndevice " + DEVICE + "\nkernel k1\nclass 13x13\nblock 32 eight 1\n",
                StandardCharsets.UTF_8);
        assertNull(c.read("k1", "13x13", BLOCKS));
        assertEquals(1, warnings.size(), "said once a run: " + warnings);
        // tuning again replaces it
        c.write("k1", "13x13", BLOCKS.get(3), "acc_sweep", "");
        assertArrayEquals(BLOCKS.get(3), c.read("k1", "13x13", BLOCKS));
    }

    @Test
    void aFolderThatCannotBeWrittenIsSaidOnce(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "not a folder");
        List<String> warnings = new ArrayList<>();
        ShapeCache c = new ShapeCache(file.resolve("tune"), DEVICE, warnings::add);
        assertNull(c.write("k1", "13x13", BLOCKS.get(1), "acc_sweep", ""));
        assertNull(c.write("k2", "13x13", BLOCKS.get(1), "acc_sweep", ""));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("kernels are timed again in each run"), warnings.get(0));
        assertNull(c.read("k1", "13x13", BLOCKS));
    }
}
