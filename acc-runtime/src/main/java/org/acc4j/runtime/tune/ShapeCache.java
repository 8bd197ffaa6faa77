package org.acc4j.runtime.tune;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * The block shapes chosen by timing, kept across runs: one small text file per (device, kernel, size class) in a
 * folder ({@code tune/} under the kernel cache's folder).
 *
 * <p>The device is its name, the driver's version and its architecture; the kernel is a SHA-256 of its PTX; the
 * size class is {@link Tuner#sizeClass}. The file's name is a digest of the three, and the file repeats them in
 * full, so an entry made for another device, driver or kernel is never taken. An entry is written to a temporary
 * file in the folder and renamed over the old one: a reader sees a whole entry or none. An entry that cannot be
 * read, does not parse, names something else or a block that is not among the kernel's candidates is ignored (and
 * replaced once the kernel is tuned again); the first such entry of a run is said once through {@code warnings}, as
 * is a folder that cannot be written. Thread-safe.
 */
public final class ShapeCache {
    static final String MAGIC = "acc4j tuned block 1";
    private static final int MAX_BYTES = 64 << 10;

    private final Path folder;
    private final String device;
    private final Consumer<String> warnings;
    private volatile boolean saidBad;
    private volatile boolean saidUnwritable;

    /**
     * @param folder   where entries live (created on the first store)
     * @param device   the device, driver and architecture, e.g. {@code NVIDIA H100 80GB HBM3|driver 12040|sm_90}
     * @param warnings takes one line about the first unusable entry and one about an unwritable folder
     */
    public ShapeCache(Path folder, String device, Consumer<String> warnings) {
        this.folder = folder;
        this.device = device.replace('\n', ' ');
        this.warnings = warnings;
    }

    public Path folder() {
        return folder;
    }

    /** The entry's file for {@code kernel} (a PTX digest) at {@code sizeClass}. */
    public Path file(String kernel, String sizeClass) {
        return folder.resolve(digest(device + "\n" + kernel + "\n" + sizeClass).substring(0, 40) + ".block");
    }

    /**
     * The block kept for {@code kernel} at {@code sizeClass}, or null when there is none usable; a block that is not
     * one of {@code candidates} is not usable.
     */
    public int[] read(String kernel, String sizeClass, List<int[]> candidates) {
        Path f = file(kernel, sizeClass);
        if (!Files.isRegularFile(f)) {
            return null;
        }
        String problem;
        try {
            if (Files.size(f) > MAX_BYTES) {
                problem = "too large";
            } else {
                String[] lines = Files.readString(f, StandardCharsets.UTF_8).split("\n");
                problem = lines.length < 5 || !lines[0].equals(MAGIC) ? "not an entry"
                        : !lines[1].equals("device " + device) ? "made for " + lines[1]
                        : !lines[2].equals("kernel " + kernel) || !lines[3].equals("class " + sizeClass)
                        ? "made for another kernel" : null;
                if (problem == null) {
                    int[] block = parseBlock(lines[4]);
                    if (block != null) {
                        for (int[] c : candidates) {
                            if (java.util.Arrays.equals(c, block)) {
                                return c.clone();
                            }
                        }
                    }
                    problem = "its block is not among the kernel's shapes";
                }
            }
        } catch (IOException | RuntimeException e) {
            problem = "unreadable: " + e.getMessage();
        }
        if (!saidBad) {
            saidBad = true;
            warnings.accept("the tuned block shape in " + f + " is ignored (" + problem
                    + "); the kernel is timed again and the entry replaced");
        }
        return null;
    }

    private static int[] parseBlock(String line) {
        if (!line.startsWith("block ")) {
            return null;
        }
        String[] parts = line.substring(6).trim().split(" ");
        if (parts.length != 3) {
            return null;
        }
        int[] b = new int[3];
        for (int i = 0; i < 3; i++) {
            b[i] = Integer.parseInt(parts[i]);
        }
        return b;
    }

    /**
     * Keeps {@code block} for {@code kernel} at {@code sizeClass}, with {@code tried} (the report's line) for people
     * who read the file; returns the file, or null when it could not be written (said once).
     */
    public Path write(String kernel, String sizeClass, int[] block, String entry, String tried) {
        Path f = file(kernel, sizeClass);
        String text = MAGIC + "\ndevice " + device + "\nkernel " + kernel + "\nclass " + sizeClass + "\nblock " + block[0]
                + " " + block[1] + " " + block[2] + "\nentry " + entry.replace('\n', ' ') + "\ntried "
                + tried.replace('\n', ' ') + "\n";
        Path tmp = null;
        try {
            Files.createDirectories(folder);
            tmp = Files.createTempFile(folder, ".block-", ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            return f;
        } catch (IOException | RuntimeException e) {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the temporary file stays; it is never read as an entry
                }
            }
            if (!saidUnwritable) {
                saidUnwritable = true;
                warnings.accept("tuned block shapes cannot be kept in " + folder + " (" + e
                        + "); kernels are timed again in each run");
            }
            return null;
        }
    }

    /** The hex SHA-256 of {@code text}. */
    public static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
