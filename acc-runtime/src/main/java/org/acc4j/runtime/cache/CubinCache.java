package org.acc4j.runtime.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Kernels' machine code kept across runs: a folder of cubins, one file per module, so that a kernel compiled in an
 * earlier run loads as it is instead of being compiled from its PTX again.
 *
 * <p>An entry's name is a SHA-256 of the module's key in the kernel cache ({@link KernelCache#keyOf} of its PTX, with
 * the method's key), the driver's version and the device's architecture: a new driver or another GPU finds no entry
 * and compiles anew. The file holds a header (a magic line, the full key, the image's length and SHA-256) and the
 * image. An entry whose header, key, length or digest does not match, or that the loader refuses, is a miss: it is
 * deleted (when it can be) and the module is compiled from its PTX and stored again. Entries are written to a
 * temporary file in the folder and renamed over the entry, so a reader sees a whole entry or none, and two
 * processes writing one entry at once leave one of them whole.
 *
 * <p>Nothing here is fatal: a folder that cannot be created or written, or an entry that cannot be read, only costs
 * the compile. Thread-safe.
 *
 * @param <M> a loaded module: {@link org.acc4j.runtime.cuda.Module} on CUDA
 */
public final class CubinCache<M> {
    /** Compiles and loads modules. */
    public interface Loader<M> {
        /** Compiles PTX to the device's machine code (a cubin image); throws when the PTX does not assemble. */
        byte[] compile(String ptx, String name);

        /** Loads a cubin image; throws when the driver refuses it. */
        M load(byte[] image, String name);
    }

    /** What one {@link #module} call did, for the profile and the report. */
    public enum Outcome {
        /** Loaded from the folder. */
        HIT,
        /** Compiled and stored. */
        COMPILED,
        /** An entry was there but unusable (corrupt, foreign or refused): compiled and stored again. */
        REPLACED
    }

    private static final byte[] MAGIC = "acc4j cubin 1\n".getBytes(StandardCharsets.US_ASCII);
    /** Larger entries are not read: no module of ours comes near. */
    private static final long MAX_IMAGE = 256L << 20;

    private final Path folder;
    private final String context;
    private final Loader<M> loader;
    private final Consumer<String> warnings;
    private volatile boolean saidUnwritable;

    /**
     * @param folder   the cache's folder (created on the first store)
     * @param driver   the driver's version ({@code cuDriverGetVersion})
     * @param arch     the device's architecture, e.g. {@code sm_90}
     * @param warnings takes a line when the folder cannot be written (said once)
     */
    public CubinCache(Path folder, int driver, String arch, Loader<M> loader, Consumer<String> warnings) {
        this.folder = folder;
        this.context = "driver " + driver + "|" + arch;
        this.loader = loader;
        this.warnings = warnings;
    }

    public Path folder() {
        return folder;
    }

    /** The module of {@code key} (its PTX {@code ptx}), with what was done to get it. */
    public record Loaded<M>(M module, Outcome outcome, long compileNanos, long loadNanos) {
    }

    /** Images compiled ahead of their first use ({@link #prepare}), by full key, until a load takes them. */
    private final java.util.concurrent.ConcurrentHashMap<String, byte[]> prepared =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Compiles in progress ahead of first use, by full key: a load of the same module waits for them. */
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.CountDownLatch> preparing =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Compiles and stores the module of {@code key} ahead of its first use, unless a usable entry is stored already
     * (call it on a thread of its own, with the context current there). A load of the module meanwhile waits for
     * it instead of compiling too. A failure here is silent: the load compiles, and says what went wrong.
     *
     * @return whether it compiled
     */
    public boolean prepare(String key, String ptx, String name) {
        String full = key + "|" + context;
        Path file = folder.resolve(fileName(full));
        if (prepared.containsKey(full) || read(file, full) != null) {
            return false;
        }
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        if (preparing.putIfAbsent(full, done) != null) {
            return false;
        }
        try {
            byte[] image = loader.compile(ptx, name);
            prepared.put(full, image);
            write(file, full, image);
            return true;
        } catch (RuntimeException e) {
            return false;
        } finally {
            preparing.remove(full, done);
            done.countDown();
        }
    }

    /**
     * The module for {@code key}: loaded from its entry when there is a usable one (or from an image compiled ahead by
     * {@link #prepare}), else compiled from {@code ptx}, loaded and stored.
     */
    public Loaded<M> module(String key, String ptx, String name) {
        String full = key + "|" + context;
        Path file = folder.resolve(fileName(full));
        java.util.concurrent.CountDownLatch inFlight = preparing.get(full);
        if (inFlight != null) {
            try {
                inFlight.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] ready = prepared.remove(full);
        if (ready != null) {
            long l0 = System.nanoTime();
            try {
                return new Loaded<>(loader.load(ready, name), Outcome.HIT, 0, System.nanoTime() - l0);
            } catch (RuntimeException e) {
                // compiled for a context since rebuilt, or refused: go the usual way
            }
        }
        byte[] image = read(file, full);
        boolean replaced = false;
        if (image != null) {
            long l0 = System.nanoTime();
            try {
                return new Loaded<>(loader.load(image, name), Outcome.HIT, 0, System.nanoTime() - l0);
            } catch (RuntimeException e) {
                // a whole entry the driver refuses (another driver's, or damaged before it was written): replace it
                delete(file);
                replaced = true;
            }
        } else if (Files.exists(file)) {
            delete(file);
            replaced = true;
        }
        long c0 = System.nanoTime();
        byte[] compiled = loader.compile(ptx, name);
        long c1 = System.nanoTime();
        M m = loader.load(compiled, name);
        long l1 = System.nanoTime();
        write(file, full, compiled);
        return new Loaded<>(m, replaced ? Outcome.REPLACED : Outcome.COMPILED, c1 - c0, l1 - c1);
    }

    /** The entry's file name for a full key. */
    static String fileName(String fullKey) {
        return HexFormat.of().formatHex(sha256(fullKey.getBytes(StandardCharsets.UTF_8))) + ".cubin";
    }

    /** The image of a whole entry for {@code fullKey}, or null when there is none or it does not check. */
    byte[] read(Path file, String fullKey) {
        byte[] bytes;
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > MAX_IMAGE + 4096) {
                return null;
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return null;
        }
        byte[] key = fullKey.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            byte[] magic = new byte[MAGIC.length];
            b.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                return null;
            }
            int keyLength = b.getInt();
            if (keyLength != key.length) {
                return null;
            }
            byte[] storedKey = new byte[keyLength];
            b.get(storedKey);
            if (!Arrays.equals(storedKey, key)) {
                return null;
            }
            long length = b.getLong();
            byte[] digest = new byte[32];
            b.get(digest);
            if (length < 0 || length != b.remaining()) {
                return null;
            }
            byte[] image = new byte[(int) length];
            b.get(image);
            return Arrays.equals(sha256(image), digest) ? image : null;
        } catch (java.nio.BufferUnderflowException e) {
            return null;
        }
    }

    /** Writes an entry through a temporary file renamed over it; a failure is said once and ignored. */
    void write(Path file, String fullKey, byte[] image) {
        byte[] key = fullKey.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 4 + key.length + 8 + 32 + image.length);
        b.put(MAGIC).putInt(key.length).put(key).putLong(image.length).put(sha256(image)).put(image);
        Path temp = null;
        try {
            Files.createDirectories(folder);
            temp = Files.createTempFile(folder, ".entry-", ".tmp");
            Files.write(temp, b.array());
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            temp = null;
        } catch (IOException | SecurityException e) {
            if (!saidUnwritable) {
                saidUnwritable = true;
                warnings.accept("the kernel cache folder " + folder + " cannot be written (" + e
                        + "): kernels are compiled again in each run (set ACC4J_CACHE_DIR, or ACC4J_CACHE=off)");
            }
        } finally {
            if (temp != null) {
                delete(temp);
            }
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException | SecurityException e) {
            // a read-only folder: the entry stays a miss
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
