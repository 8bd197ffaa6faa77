package org.acc4j.compiler.fuzz;

import java.lang.reflect.Method;
import java.util.Map;

/**
 * Runs seeds through the interpreter side in batches (one javac run and one class per batch). Also a command:
 * {@code Fuzz first count [flags to switch off...]} prints the tally, and with a single seed, its source.
 */
public final class Fuzz {
    public static final int BATCH = 50;

    private Fuzz() {
    }

    /**
     * Whether this runtime has a Java compiler. A jlink'd runtime without {@code jdk.compiler} (the GPU machine's)
     * has none, and there {@link Javac} must not even be loaded: its verification needs {@code javax.tools}.
     */
    public static boolean javacAvailable() {
        return ModuleLayer.boot().findModule("jdk.compiler").isPresent();
    }

    /** Generates and compiles the batch; its loader, or a failure for every seed when javac rejects it. */
    public static Javac.Loader load(Batch b, Harness.Tally tally) {
        try {
            return new Javac.Loader(Javac.compile(b.className(), b.source()), Fuzz.class.getClassLoader());
        } catch (IllegalStateException e) {
            for (Nest n : b.nests()) {
                tally.add(n, Outcome.failed("the generator wrote Java that does not compile: " + e.getMessage()));
            }
            return null;
        }
    }

    /** The class bytes and plain method of one nest of a loaded batch. */
    public static Method method(Class<?> c, Nest n) throws NoSuchMethodException {
        return c.getMethod(n.method(), n.types());
    }

    /**
     * Seeds {@code first .. first+count-1} on the interpreter side, every kernel also through {@code ptxas} when it
     * is on the PATH (unless {@code -Dacc4j.fuzz.ptxas=false}).
     */
    public static Harness.Tally interpret(long first, long count, NestGenerator.Options options) throws Exception {
        Harness.Tally tally = new Harness.Tally();
        java.nio.file.Path ptxas = Boolean.parseBoolean(System.getProperty("acc4j.fuzz.ptxas", "true"))
                ? org.acc4j.compiler.Ptxas.find() : null;
        for (long s = first; s < first + count; s += BATCH) {
            Batch b = Batch.of(s, (int) Math.min(BATCH, first + count - s), options);
            Javac.Loader loader = load(b, tally);
            if (loader == null) {
                continue;
            }
            Class<?> c = loader.loadClass(b.className());
            byte[] bytes = loader.getResourceAsStream(b.className().replace('.', '/') + ".class").readAllBytes();
            for (Nest n : b.nests()) {
                tally.add(n, Harness.interpret(n, method(c, n), bytes, ptxas));
            }
        }
        return tally;
    }

    public static void main(String[] args) throws Exception {
        long first = Long.parseLong(args[0]);
        long count = args.length > 1 ? Long.parseLong(args[1]) : 1;
        NestGenerator.Options o = NestGenerator.Options.ALL;
        for (int k = 2; k < args.length; k++) {
            o = o.without(args[k]);
        }
        if (count == 1) {
            Nest n = NestGenerator.generate(first, o);
            System.out.println(n.source());
            for (Nest.Param p : n.params()) {
                Object v = p.value();
                System.out.println("  " + p.name() + " = " + (v.getClass().isArray()
                        ? v.getClass().getSimpleName() + " of " + java.lang.reflect.Array.getLength(v) : v));
            }
        }
        long t0 = System.nanoTime();
        Harness.Tally t = interpret(first, count, o);
        System.out.print(t.summary());
        System.out.printf("%.1f s%n", (System.nanoTime() - t0) / 1e9);
        for (Map.Entry<Long, String> f : t.failures.entrySet()) {
            if (count == 1) {
                System.out.println(f.getValue());
            }
        }
    }
}
