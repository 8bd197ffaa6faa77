package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cache.CubinCache;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.KernelArgs;
import org.acc4j.runtime.cuda.Module;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel cache's cubins on the GPU: a module compiled by the driver's linker is stored, a second cache (as a new
 * run would be) loads it without compiling, and an entry that is corrupt, or whole but holding an image the driver
 * refuses, is compiled again and replaced; each time the kernel computes what plain Java computes, element by
 * element. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class CubinCacheGpuTest {
    private static final String PTX = MappedLaunchGpuTest.PTX;

    @Test
    void storedModulesLoadAgainAndBadEntriesAreReplaced(@TempDir Path dir) throws Exception {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        Device device = Device.all().get(0);
        Context context = Context.open(device);
        try {
            check(load(dir, device), new long[] {0, 1, 0}, "a first run compiles and stores");
            check(load(dir, device), new long[] {1, 0, 0}, "a second run loads the stored cubin");

            Path entry = only(dir);
            byte[] good = Files.readAllBytes(entry);
            byte[] flipped = good.clone();
            flipped[flipped.length - 7] ^= 0x5a;
            Files.write(entry, flipped);
            check(load(dir, device), new long[] {0, 0, 1}, "a corrupt entry is compiled again");
            assertArrayEquals(good, Files.readAllBytes(entry), "and replaced by a whole one");

            // a well-formed entry of this key whose image is not a cubin: its digest matches, the driver refuses it
            Files.write(entry, withImage(good, "not a cubin at all".getBytes(StandardCharsets.US_ASCII)));
            check(load(dir, device), new long[] {0, 0, 1}, "an image the driver refuses is compiled again");
            assertArrayEquals(good, Files.readAllBytes(entry));
        } finally {
            context.close();
        }
    }

    /** A new kernel cache over {@code dir}, as a new run's would be, with the test's module loaded. */
    private static KernelCache load(Path dir, Device device) {
        KernelCache cache = new KernelCache(new CubinCache<>(dir, Device.driverVersion(), device.smTarget(),
                KernelCache.CUDA, w -> {
                    throw new AssertionError(w);
                }));
        cache.module("cubin-test#" + KernelCache.keyOf(PTX), PTX, "the cubin cache test");
        return cache;
    }

    /** The module's outcome counts, and its kernel run against plain Java. */
    private static void check(KernelCache cache, long[] outcomes, String what) {
        try {
            assertArrayEquals(outcomes, cache.cubinOutcomes(), what + ": hits, compiles, replacements");
            Module m = cache.module("cubin-test#" + KernelCache.keyOf(PTX), PTX, "the cubin cache test");
            Function f = m.function("record_and_store");
            Random r = new Random(99);
            try (DeviceBuffer record = DeviceBuffer.allocate(16, "record");
                 DeviceBuffer out = DeviceBuffer.allocate(32, "out")) {
                for (int call = 0; call < 20; call++) {
                    record.zero();
                    int i = r.nextInt();
                    long l = r.nextLong();
                    float fl = r.nextFloat();
                    double d = r.nextDouble();
                    f.launch(new int[] {2, 1, 1}, new int[] {64, 1, 1}, new KernelArgs().addPointer(record)
                            .addPointer(out).addInt(i).addLong(l).addFloat(fl).addDouble(d).addInt(128), what);
                    byte[] bytes = new byte[32];
                    out.copyToHost(bytes);
                    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
                    assertEquals(i, b.getInt(0), what);
                    assertEquals(l, b.getLong(8), what);
                    assertEquals(Float.floatToRawIntBits(fl), Float.floatToRawIntBits(b.getFloat(16)), what);
                    assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(b.getDouble(24)), what);
                    long[] rec = new long[2];
                    record.copyToHost(rec);
                    assertArrayEquals(new long[] {0, 0}, rec, what + ": no thread failed");
                }
            }
        } finally {
            cache.close();
        }
    }

    private static Path only(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> all = s.toList();
            assertEquals(1, all.size(), () -> "one entry: " + all);
            return all.get(0);
        }
    }

    /** The entry {@code good} with its image replaced by {@code image}, its length and digest made to match. */
    private static byte[] withImage(byte[] good, byte[] image) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(good);
        byte[] magic = new byte[14];
        b.get(magic);
        int keyLength = b.getInt();
        byte[] key = new byte[keyLength];
        b.get(key);
        ByteBuffer out = ByteBuffer.allocate(magic.length + 4 + keyLength + 8 + 32 + image.length);
        out.put(magic).putInt(keyLength).put(key).putLong(image.length)
                .put(MessageDigest.getInstance("SHA-256").digest(image)).put(image);
        return out.array();
    }
}
