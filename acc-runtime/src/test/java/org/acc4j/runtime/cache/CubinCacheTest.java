package org.acc4j.runtime.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cubin cache with a fake loader: an image is the PTX's bytes reversed, and loading checks that it is one (a
 * "driver" that refuses anything else), so a hit, a miss, and every kind of bad entry can be told apart without a
 * device.
 */
class CubinCacheTest {
    /** Counts compiles and loads; refuses an image that is not a reversed PTX of the expected text. */
    static class FakeLoader implements CubinCache.Loader<String> {
        int compiles;
        int loads;
        final List<String> refused = new ArrayList<>();

        @Override
        public synchronized byte[] compile(String ptx, String name) {
            compiles++;
            return reverse(("IMAGE " + ptx).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public synchronized String load(byte[] image, String name) {
            loads++;
            String text = new String(reverse(image), StandardCharsets.UTF_8);
            if (!text.startsWith("IMAGE ")) {
                refused.add(name);
                throw new IllegalStateException("not an image");
            }
            return text.substring(6);
        }

        static byte[] reverse(byte[] b) {
            byte[] r = new byte[b.length];
            for (int i = 0; i < b.length; i++) {
                r[i] = b[b.length - 1 - i];
            }
            return r;
        }
    }

    private static String ptx(int seed) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder(".version 8.0\n.target sm_90\n");
        for (int i = 0; i < 200 + r.nextInt(300); i++) {
            b.append("// line ").append(r.nextLong()).append('\n');
        }
        return b.toString();
    }

    private static List<Path> entries(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    @Test
    void aSecondRunLoadsTheStoredImageWithoutCompiling(@TempDir Path dir) throws Exception {
        FakeLoader first = new FakeLoader();
        CubinCache<String> run1 = new CubinCache<>(dir, 12040, "sm_90", first, w -> { });
        for (int i = 0; i < 5; i++) {
            CubinCache.Loaded<String> l = run1.module("k" + i, ptx(i), "m" + i);
            assertEquals(ptx(i), l.module());
            assertEquals(CubinCache.Outcome.COMPILED, l.outcome());
        }
        assertEquals(5, first.compiles);
        assertEquals(5, entries(dir).size(), "one entry per module, no temporary file left");
        assertTrue(entries(dir).stream().allMatch(p -> p.getFileName().toString().endsWith(".cubin")));

        FakeLoader second = new FakeLoader();
        CubinCache<String> run2 = new CubinCache<>(dir, 12040, "sm_90", second, w -> { });
        for (int i = 0; i < 5; i++) {
            CubinCache.Loaded<String> l = run2.module("k" + i, ptx(i), "m" + i);
            assertEquals(ptx(i), l.module(), "the image of its own key, element for element");
            assertEquals(CubinCache.Outcome.HIT, l.outcome());
            assertEquals(0, l.compileNanos());
        }
        assertEquals(0, second.compiles);
        assertEquals(5, second.loads);
    }

    @Test
    void aModuleCompiledAheadLoadsWithoutCompiling(@TempDir Path dir) {
        FakeLoader loader = new FakeLoader();
        CubinCache<String> c = new CubinCache<>(dir, 1, "sm_90", loader, w -> { });
        assertTrue(c.prepare("k", ptx(11), "m"));
        assertFalse(c.prepare("k", ptx(11), "m"), "compiled once");
        CubinCache.Loaded<String> l = c.module("k", ptx(11), "m");
        assertEquals(ptx(11), l.module());
        assertEquals(CubinCache.Outcome.HIT, l.outcome());
        assertEquals(1, loader.compiles);
        FakeLoader next = new FakeLoader();
        assertEquals(CubinCache.Outcome.HIT,
                new CubinCache<>(dir, 1, "sm_90", next, w -> { }).module("k", ptx(11), "m").outcome(), "stored too");
        assertEquals(0, next.compiles);
    }

    @Test
    void aLoadWaitsForTheCompileAheadOfIt(@TempDir Path dir) throws Exception {
        java.util.concurrent.CountDownLatch compiling = new java.util.concurrent.CountDownLatch(1);
        FakeLoader slow = new FakeLoader() {
            @Override
            public byte[] compile(String ptx, String name) {
                compiling.countDown();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return super.compile(ptx, name);
            }
        };
        CubinCache<String> c = new CubinCache<>(dir, 1, "sm_90", slow, w -> { });
        Thread ahead = new Thread(() -> c.prepare("k", ptx(12), "m"));
        ahead.start();
        compiling.await();
        CubinCache.Loaded<String> l = c.module("k", ptx(12), "m");
        ahead.join();
        assertEquals(ptx(12), l.module());
        assertEquals(CubinCache.Outcome.HIT, l.outcome());
        assertEquals(1, slow.compiles, "the load took the compile ahead of it");
    }

    @Test
    void aCompileAheadThatFailsLeavesItToTheLoad(@TempDir Path dir) {
        FakeLoader failing = new FakeLoader() {
            int calls;

            @Override
            public synchronized byte[] compile(String ptx, String name) {
                if (calls++ == 0) {
                    throw new IllegalStateException("no context here");
                }
                return super.compile(ptx, name);
            }
        };
        CubinCache<String> c = new CubinCache<>(dir, 1, "sm_90", failing, w -> { });
        assertFalse(c.prepare("k", ptx(13), "m"));
        CubinCache.Loaded<String> l = c.module("k", ptx(13), "m");
        assertEquals(ptx(13), l.module());
        assertEquals(CubinCache.Outcome.COMPILED, l.outcome());
    }

    @Test
    void anotherDriverOrArchitectureFindsNoEntry(@TempDir Path dir) {
        new CubinCache<>(dir, 12040, "sm_90", new FakeLoader(), w -> { }).module("k", ptx(1), "m");
        FakeLoader other = new FakeLoader();
        assertEquals(CubinCache.Outcome.COMPILED,
                new CubinCache<>(dir, 12050, "sm_90", other, w -> { }).module("k", ptx(1), "m").outcome());
        assertEquals(CubinCache.Outcome.COMPILED,
                new CubinCache<>(dir, 12040, "sm_80", other, w -> { }).module("k", ptx(1), "m").outcome());
        assertEquals(2, other.compiles);
    }

    @Test
    void aCorruptEntryIsReplaced(@TempDir Path dir) throws Exception {
        new CubinCache<>(dir, 1, "sm_90", new FakeLoader(), w -> { }).module("k", ptx(2), "m");
        Path entry = entries(dir).get(0);
        byte[] good = Files.readAllBytes(entry);
        Random r = new Random(7);
        // a flipped byte anywhere (header, key, length, digest or image), a truncation, garbage, an empty file
        List<byte[]> bad = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] b = good.clone();
            int at = r.nextInt(b.length);
            b[at] ^= (byte) (1 + r.nextInt(255));
            bad.add(b);
        }
        bad.add(java.util.Arrays.copyOf(good, good.length / 2));
        bad.add(java.util.Arrays.copyOf(good, good.length + 3));
        byte[] garbage = new byte[good.length];
        r.nextBytes(garbage);
        bad.add(garbage);
        bad.add(new byte[0]);
        for (byte[] b : bad) {
            Files.write(entry, b);
            FakeLoader loader = new FakeLoader();
            CubinCache.Loaded<String> l = new CubinCache<>(dir, 1, "sm_90", loader, w -> { }).module("k", ptx(2), "m");
            assertEquals(ptx(2), l.module(), "never a wrong module");
            assertEquals(CubinCache.Outcome.REPLACED, l.outcome());
            assertEquals(1, loader.compiles);
            assertArrayEquals(good, Files.readAllBytes(entry), "stored whole again");
        }
    }

    @Test
    void aForeignEntryUnderTheNameIsAMiss(@TempDir Path dir) throws Exception {
        // another key's whole entry copied under this key's name: the key in the header tells them apart
        CubinCache<String> c = new CubinCache<>(dir, 1, "sm_90", new FakeLoader(), w -> { });
        c.module("a", ptx(3), "a");
        Path a = dir.resolve(CubinCache.fileName("a|driver 1|sm_90"));
        Path b = dir.resolve(CubinCache.fileName("b|driver 1|sm_90"));
        Files.copy(a, b);
        FakeLoader loader = new FakeLoader();
        CubinCache.Loaded<String> l = new CubinCache<>(dir, 1, "sm_90", loader, w -> { }).module("b", ptx(4), "b");
        assertEquals(ptx(4), l.module());
        assertEquals(CubinCache.Outcome.REPLACED, l.outcome());
    }

    @Test
    void anEntryTheDriverRefusesIsReplaced(@TempDir Path dir) throws Exception {
        // a whole, well-formed entry whose image the driver refuses (say, written by a broken compiler)
        CubinCache.Loader<String> broken = new CubinCache.Loader<>() {
            @Override
            public byte[] compile(String ptx, String name) {
                return "not an image".getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String load(byte[] image, String name) {
                return "accepted once";
            }
        };
        new CubinCache<>(dir, 1, "sm_90", broken, w -> { }).module("k", ptx(5), "m");
        FakeLoader loader = new FakeLoader();
        CubinCache.Loaded<String> l = new CubinCache<>(dir, 1, "sm_90", loader, w -> { }).module("k", ptx(5), "m");
        assertEquals(ptx(5), l.module());
        assertEquals(CubinCache.Outcome.REPLACED, l.outcome());
        assertEquals(List.of("m"), loader.refused);
        assertEquals(CubinCache.Outcome.HIT,
                new CubinCache<>(dir, 1, "sm_90", new FakeLoader(), w -> { }).module("k", ptx(5), "m").outcome());
    }

    @Test
    void anUnwritableFolderOnlyCostsTheCompile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "not a folder");
        List<String> warnings = new ArrayList<>();
        FakeLoader loader = new FakeLoader();
        CubinCache<String> c = new CubinCache<>(file.resolve("cache"), 1, "sm_90", loader, warnings::add);
        for (int i = 0; i < 3; i++) {
            assertEquals(ptx(6), c.module("k", ptx(6), "m").module());
        }
        assertEquals(3, loader.compiles);
        assertEquals(1, warnings.size(), "said once: " + warnings);
        assertTrue(warnings.get(0).contains("ACC4J_CACHE_DIR"), warnings.get(0));
    }

    @Test
    void concurrentWritersLeaveOneWholeEntry(@TempDir Path dir) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                // separate caches over one folder, as separate processes would be
                results.add(pool.submit(() -> new CubinCache<>(dir, 1, "sm_90", new FakeLoader(), w -> { })
                        .module("k", ptx(8), "m").module()));
            }
            for (Future<String> f : results) {
                assertEquals(ptx(8), f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, entries(dir).size(), "no temporary file left: " + entries(dir));
        FakeLoader loader = new FakeLoader();
        assertEquals(CubinCache.Outcome.HIT,
                new CubinCache<>(dir, 1, "sm_90", loader, w -> { }).module("k", ptx(8), "m").outcome());
        assertFalse(loader.compiles > 0);
    }
}
