package org.acc4j.runtime.cache;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.acc4j.runtime.cuda.Module;

/**
 * Loaded kernel modules, keyed by what determines the code: the compiler's key of the method
 * ({@link org.acc4j.compiler.plan.CacheKey}: every class file it read, its version, the device's compute capability)
 * and the PTX text itself. The cache owns its modules and
 * unloads them on {@link #close()}. Thread-safe; loading needs the context current on the calling thread.
 */
public final class KernelCache implements AutoCloseable {
    private final Map<String, Module> modules = new HashMap<>();
    /** Modules being loaded ahead of their first use without a cubin cache: a load of one waits for it. */
    private final Map<String, java.util.concurrent.CountDownLatch> preparing =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Cubins kept across runs, or null: then each module is compiled from its PTX by the driver when loaded. */
    private final CubinCache<Module> cubins;
    /** Of the last module loaded: nanoseconds spent compiling PTX (0 when its cubin came from the cache folder). */
    private long lastCompileNanos;
    private final long[] outcomes = new long[CubinCache.Outcome.values().length];

    /** A cache that loads PTX through the driver (whose own JIT cache may keep the cubins). */
    public KernelCache() {
        this(null);
    }

    /** A cache whose modules' cubins are kept in {@code cubins} across runs (null for none). */
    public KernelCache(CubinCache<Module> cubins) {
        this.cubins = cubins;
    }

    /** The loader of the cubin cache on CUDA: the driver's linker compiles, {@code cuModuleLoadData} loads. */
    public static final CubinCache.Loader<Module> CUDA = new CubinCache.Loader<>() {
        @Override
        public byte[] compile(String ptx, String name) {
            return Module.compile(ptx, name);
        }

        @Override
        public Module load(byte[] image, String name) {
            return Module.loadImage(image, name);
        }
    };

    /** A key for a module from its PTX text alone. */
    public static String keyOf(String ptx) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(ptx.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The module for {@code key}, loading {@code ptx} the first time (or waiting for a load ahead of it). */
    public Module module(String key, String ptx, String name) {
        java.util.concurrent.CountDownLatch inFlight = preparing.get(key);
        if (inFlight != null) {
            try {
                inFlight.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return loaded(key, ptx, name);
    }

    private synchronized Module loaded(String key, String ptx, String name) {
        Module m = modules.get(key);
        if (m == null || m.isClosed()) {
            lastCompileNanos = 0;
            if (cubins != null) {
                CubinCache.Loaded<Module> loaded;
                try {
                    loaded = cubins.module(key, ptx, name);
                } catch (RuntimeException e) {
                    // the linker refused: the driver's own load gives the JIT error log, or succeeds
                    loaded = null;
                }
                if (loaded != null) {
                    m = loaded.module();
                    lastCompileNanos = loaded.compileNanos();
                    outcomes[loaded.outcome().ordinal()]++;
                }
            }
            if (m == null || m.isClosed()) {
                m = Module.load(ptx, name);
            }
            modules.put(key, m);
        }
        return m;
    }

    /**
     * Prepares the module of {@code key} ahead of its first use, on a thread of its own with the context current:
     * with a cubin cache it compiles it into the cache (see {@link CubinCache#prepare}); without one it loads it,
     * so that the driver's JIT runs now and the first use finds the module loaded (a use meanwhile waits for it).
     * Not synchronised on this cache while it compiles: loads of other modules are not held up by it. A failure here
     * is silent: the first use loads the module again, and says what went wrong.
     *
     * @return whether it compiled
     */
    public boolean prepare(String key, String ptx, String name) {
        if (cubins != null) {
            return cubins.prepare(key, ptx, name);
        }
        synchronized (this) {
            Module m = modules.get(key);
            if (m != null && !m.isClosed()) {
                return false;
            }
        }
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        if (preparing.putIfAbsent(key, done) != null) {
            return false;
        }
        try {
            Module loaded;
            try {
                loaded = Module.load(ptx, name);
            } catch (RuntimeException e) {
                return false;
            }
            synchronized (this) {
                Module m = modules.get(key);
                if (m != null && !m.isClosed()) {
                    loaded.close();
                    return false;
                }
                modules.put(key, loaded);
                return true;
            }
        } finally {
            preparing.remove(key, done);
            done.countDown();
        }
    }

    /** Whether modules' cubins are kept across runs. */
    public boolean keepsCubins() {
        return cubins != null;
    }

    /** Nanoseconds the last module loaded spent being compiled from PTX (0 for a cubin found in the cache folder). */
    public synchronized long lastCompileNanos() {
        return lastCompileNanos;
    }

    /** How many modules the cubin cache loaded, compiled, and compiled again over an unusable entry. */
    public synchronized long[] cubinOutcomes() {
        return outcomes.clone();
    }

    public synchronized int size() {
        return modules.size();
    }

    /**
     * Forgets every module without unloading it, after the context that held them was destroyed (a sticky fault):
     * each is {@linkplain Module#abandon() abandoned}, so their functions refuse to launch, and the next {@link
     * #module} call loads its PTX again.
     */
    public synchronized void forget() {
        for (Module m : modules.values()) {
            m.abandon();
        }
        modules.clear();
    }

    @Override
    public synchronized void close() {
        for (Module m : modules.values()) {
            m.close();
        }
        modules.clear();
    }
}
