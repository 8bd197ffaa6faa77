package org.acc4j.compiler.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.acc4j.compiler.Compiler;

/**
 * The key of a compiled method's kernels in a kernel cache, over everything that determines their code: every
 * class file the compiler read for the method (its own class and each class it inlined from, or the absence of
 * one), the method's name and descriptor, the compiler's version, the target's compute capability and the options
 * that change the code.
 *
 * <p>Use: hand the compiler {@link #classFile} as its class source, compile, then take {@link #of}. Thread-safe.
 */
public final class CacheKey {
    private final Function<String, byte[]> classes;
    private final String owner;
    /** The class files read so far, by internal name; an empty array for a class that was not found. */
    private final Map<String, byte[]> read = new TreeMap<>();
    private static final byte[] ABSENT = {};

    /**
     * A key over {@code ownerFile}, the class file of the method's class {@code owner} (an internal name), and every
     * class later read through {@link #classFile} from {@code classes}.
     */
    public CacheKey(String owner, byte[] ownerFile, Function<String, byte[]> classes) {
        this.classes = classes;
        this.owner = owner;
        read.put(owner, ownerFile.clone());
    }

    /** The class file of {@code internalName} from the class source, or null when it has none; recorded for the key. */
    public synchronized byte[] classFile(String internalName) {
        byte[] bytes = classes.apply(internalName);
        read.put(internalName, bytes == null ? ABSENT : bytes.clone());
        return bytes;
    }

    /** The internal names of the classes read so far, the method's own first, then in name order. */
    public synchronized List<String> classesRead() {
        List<String> names = new ArrayList<>();
        names.add(owner);
        read.keySet().stream().filter(n -> !n.equals(owner)).forEach(names::add);
        return names;
    }

    /**
     * The key of method {@code name} with {@code descriptor} compiled for compute capability {@code sm} (e.g. 90),
     * with {@code options} the settings that change the code ("" for none): 64 hexadecimal digits.
     */
    public synchronized String of(String name, String descriptor, int sm, String options) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        for (Map.Entry<String, byte[]> e : read.entrySet()) {
            // each part with its length: no two different sets of files hash the same bytes
            update(sha, e.getKey().getBytes(StandardCharsets.UTF_8));
            update(sha, e.getValue());
        }
        update(sha, (name + descriptor + "|" + Compiler.VERSION + "|sm_" + sm + "|" + options)
                .getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void update(MessageDigest sha, byte[] part) {
        int n = part.length;
        sha.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        sha.update(part);
    }
}
