package org.acc4j.runtime.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Map;

/**
 * Loads JCuda's native driver library ({@code lib/libJCudaDriver-<version>-<os>-<arch>.so} inside the jar) without
 * leaving files in the temporary folder.
 *
 * <p>The library is copied once into the user's cache folder, {@code $XDG_CACHE_HOME/acc4j/<version>/} or
 * {@code ~/.cache/acc4j/<version>/} (created readable by its owner only), and loaded from there by every later run.
 * The copy is written to a temporary name in that folder and renamed into place, so concurrent JVMs never load a
 * partial file, and it is rewritten when its bytes differ from the jar's. When the cache folder cannot be written,
 * the library is copied into a fresh private temporary folder, loaded, and deleted at once (a loaded library stays
 * mapped after its file is gone).
 */
public final class DriverLibrary {
    private DriverLibrary() {
    }

    /**
     * Loads the library {@code libraryName} from the jar's {@code lib/} folder through the cache.
     *
     * @return false when the jar does not ship the library (another platform): the caller then tries JCuda's way
     * @throws UnsatisfiedLinkError when the library cannot be loaded, e.g. without {@code libcuda.so.1}
     */
    public static boolean load(String libraryName) {
        String file = System.mapLibraryName(libraryName);
        byte[] bytes;
        try (InputStream in = DriverLibrary.class.getResourceAsStream("/lib/" + file)) {
            if (in == null) {
                return false;
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw linkError("cannot read lib/" + file + " from acc4j's jar", e);
        }
        Path cached;
        try {
            cached = cached(folder(System.getenv(), System.getProperty("user.home")), file, bytes);
        } catch (IOException | UncheckedIOException | SecurityException e) {
            loadOnce(file, bytes);
            return true;
        }
        System.load(cached.toString());
        return true;
    }

    /** The cache folder: {@code $XDG_CACHE_HOME/acc4j/<version>}, else {@code <home>/.cache/acc4j/<version>}. */
    static Path folder(Map<String, String> env, String home) {
        String xdg = env.get("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : Path.of(home, ".cache");
        return base.resolve("acc4j").resolve(version());
    }

    /** acc4j's version from acc.jar's manifest; {@code dev} when running from classes. */
    static String version() {
        String v = DriverLibrary.class.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "dev" : v;
    }

    /**
     * The library's file in {@code folder}, written there first unless it already holds exactly {@code bytes}.
     *
     * @throws IOException when the folder or the file cannot be written
     */
    static Path cached(Path folder, String file, byte[] bytes) throws IOException {
        Path target = folder.resolve(file);
        if (Files.isRegularFile(target) && Files.size(target) == bytes.length
                && Arrays.equals(Files.readAllBytes(target), bytes)) {
            return target;
        }
        createPrivate(folder);
        Path part = Files.createTempFile(folder, file, ".part");
        try {
            Files.write(part, bytes);
            try {
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(part);
        }
        return target;
    }

    private static void createPrivate(Path folder) throws IOException {
        if (Files.isDirectory(folder)) {
            return;
        }
        try {
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(folder);
        } catch (FileAlreadyExistsException e) {
            // created meanwhile by another JVM
        }
    }

    /** No writable cache: a private temporary copy, deleted as soon as it is loaded. */
    private static void loadOnce(String file, byte[] bytes) {
        Path dir = null;
        Path copy = null;
        try {
            dir = Files.createTempDirectory("acc4j-");
            copy = Files.write(dir.resolve(file), bytes);
            System.load(copy.toString());
        } catch (IOException e) {
            throw linkError("cannot write " + file + " to a temporary folder", e);
        } finally {
            try {
                if (copy != null) {
                    Files.deleteIfExists(copy);
                }
                if (dir != null) {
                    Files.deleteIfExists(dir);
                }
            } catch (IOException e) {
                // best effort: the library is loaded or the error above says why
            }
        }
    }

    private static UnsatisfiedLinkError linkError(String message, Exception cause) {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError("acc4j: " + message + ": " + cause);
        e.initCause(cause);
        return e;
    }
}
