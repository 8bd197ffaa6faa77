package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.Acc;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.fuzz.Batch;
import org.acc4j.compiler.fuzz.Fuzz;
import org.acc4j.compiler.fuzz.Harness;
import org.acc4j.compiler.fuzz.Nest;
import org.acc4j.compiler.fuzz.NestGenerator;
import org.acc4j.compiler.fuzz.Outcome;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer on the GPU: {@code acc4j.fuzz.nests} random nests (default 10000, from seed
 * {@code acc4j.fuzz.first}, default 1; or the environment's {@code ACC4J_FUZZ_NESTS}, {@code ACC4J_FUZZ_FIRST}) run
 * through {@link AccRuntime#offload} and compared with plain Java, bit for bit, or by the exception thrown, and then
 * with nothing written back; every tenth offloaded nest is called a second time (its kernels loaded) and checked
 * again. Prints the counts by outcome, diagnostic and shape, where the time went, and every failing seed (rerun one
 * on the host with {@code org.acc4j.compiler.fuzz.Fuzz <seed>}).
 *
 * <p>Nests are compiled with javac in memory where the runtime has one; the GPU machine's jlink'd runtime has
 * none, so {@code scripts/gpu-pack.sh} compiles them ahead of time ({@code .gpu/lib/fuzz-nests.jar}, seeds
 * {@code FUZZ_FIRST..FUZZ_FIRST+FUZZ_NESTS-1}), and the test loads them from the class path
 * ({@code scripts/fuzz-run.sh} runs it). Skips, saying why, with neither.
 */
@Tag("gpu")
class FuzzGpuTest {
    @Test
    void randomNestsOnTheGpuMatchPlainJava() throws Exception {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        long first = setting("acc4j.fuzz.first", "ACC4J_FUZZ_FIRST", 1);
        long count = setting("acc4j.fuzz.nests", "ACC4J_FUZZ_NESTS", 10_000);
        boolean javac = Fuzz.javacAvailable();
        System.out.printf("fuzz (GPU): seeds %d..%d%n", first, first + count - 1);
        assumeTrue(javac || getClass().getClassLoader().getResource(
                        resource(Batch.className(first, (int) Math.min(Fuzz.BATCH, count)))) != null,
                "no javac in this runtime and no pre-compiled nests on the class path: bash scripts/gpu-pack.sh packs them");
        Harness.Tally tally = new Harness.Tally();
        long t0 = System.nanoTime();
        // batches run side by side (the compiler works on the host's cores; the device lock serialises the launches),
        // the nests of one batch in order on one thread
        int threads = (int) setting("acc4j.fuzz.threads", "ACC4J_FUZZ_THREADS",
                Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 2)));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
        List<java.util.concurrent.Future<?>> batches = new ArrayList<>();
        for (long start = first; start < first + count; start += Fuzz.BATCH) {
            long s = start;
            batches.add(pool.submit(() -> {
                runBatch(s, (int) Math.min(Fuzz.BATCH, first + count - s), first, count, javac, tally);
                long nests = done.addAndGet(Math.min(Fuzz.BATCH, first + count - s));
                if (nests / 1000 != (nests - Math.min(Fuzz.BATCH, first + count - s)) / 1000) {
                    System.out.printf("fuzz (GPU): %d nests, %d failed, %.0f s%n", nests, failures(tally),
                            (System.nanoTime() - t0) / 1e9);
                }
                return null;
            }));
        }
        pool.shutdown();
        try {
            for (java.util.concurrent.Future<?> f : batches) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Error err ? err : new AssertionError(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("fuzz (GPU) on %d threads; summed over the threads: %s%n", threads,
                TIMES.summary(System.nanoTime() - t0));
        System.out.printf("fuzz (GPU), seeds %d..%d in %.0f s: %s", first, first + count - 1, (System.nanoTime() - t0) / 1e9,
                tally.summary());
        assertTrue(failures(tally) == 0, "failing seeds " + tally.failures.keySet() + "\n" + tally.summary());
    }

    /**
     * Where the threads' time went, summed over them (nanoseconds). The runtime makes the calls' device work (copies,
     * each new kernel's module load, the launch) one at a time under its device lock, so the offloaded calls' sum
     * includes the time each waited for the others; the wall time per offloaded nest is what a longer run scales by.
     */
    private static final class Times {
        final java.util.concurrent.atomic.AtomicLong load = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong compile = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong plain = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong offloaded = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong repeated = new java.util.concurrent.atomic.AtomicLong();

        String summary(long wallNanos) {
            return String.format("loading the nests' classes %.1f s, compiling for the checks %.1f s, plain Java %.1f s, "
                    + "offloaded calls %.1f s (waits for the device lock included; %d of them a second call); "
                    + "%.1f ms of wall time per nest the compiler offloaded (%d)", load.get() / 1e9, compile.get() / 1e9,
                    plain.get() / 1e9, calls.get() / 1e9, repeated.get(), wallNanos / 1e6 / Math.max(1, offloaded.get()),
                    offloaded.get());
        }
    }

    private static final Times TIMES = new Times();

    /** Every this many nests, an offloaded call is made a second time (the loaded kernels' path), and checked too. */
    private static final int AGAIN_EVERY = 10;

    private static int failures(Harness.Tally tally) {
        synchronized (tally) {
            return tally.failures.size();
        }
    }

    /** The nests of one batch, in order, on the calling thread. */
    private static void runBatch(long s, int size, long first, long count, boolean javac, Harness.Tally tally)
            throws Exception {
        long t0 = System.nanoTime();
        Batch b = Batch.of(s, size, NestGenerator.Options.ALL);
        ClassLoader loader;
        synchronized (tally) {
            loader = javac ? Fuzz.load(b, tally) : FuzzGpuTest.class.getClassLoader();
        }
        if (loader == null) {
            return;
        }
        Class<?> c;
        try {
            c = Class.forName(b.className(), true, loader);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the nests from seed " + s + " were not packed: FUZZ_FIRST=" + first + " FUZZ_NESTS="
                    + count + " bash scripts/gpu-pack.sh packs them", e);
        }
        byte[] bytes;
        try (InputStream in = loader.getResourceAsStream(resource(b.className()))) {
            bytes = in.readAllBytes();
        }
        TIMES.load.addAndGet(System.nanoTime() - t0);
        for (Nest n : b.nests()) {
            tally.add(n, onDevice(n, c, Fuzz.method(c, n), bytes));
        }
    }

    /** A system property, else an environment variable (the GPU runner passes no JVM options), else the default. */
    private static long setting(String property, String env, long otherwise) {
        String v = System.getProperty(property, System.getenv(env));
        return v == null || v.isBlank() ? otherwise : Long.parseLong(v.trim());
    }

    private static String resource(String className) {
        return className.replace('.', '/') + ".class";
    }

    /**
     * The compiler's decision, then (when it offloads) the call on the device against plain Java: the same values, or
     * the same exception with nothing written back; every {@link #AGAIN_EVERY}th nest is called twice.
     */
    private static Outcome onDevice(Nest n, Class<?> c, Method plainJava, byte[] bytes) throws IOException {
        long t0 = System.nanoTime();
        Object compiled = Harness.compile(n, bytes);
        long t1 = System.nanoTime();
        TIMES.compile.addAndGet(t1 - t0);
        if (compiled instanceof Outcome o) {
            return o;
        }
        assert compiled instanceof CompiledMethod;
        Object[] expected = n.args();
        Throwable javaThrew = Harness.plain(plainJava, expected);
        long t2 = System.nanoTime();
        TIMES.plain.addAndGet(t2 - t1);
        TIMES.offloaded.incrementAndGet();
        Outcome o = call(n, c, expected, javaThrew);
        long t3 = System.nanoTime();
        TIMES.calls.addAndGet(t3 - t2);
        if (!o.failed() && o.kind() != Outcome.Kind.HOST_AT_LAUNCH && Math.floorMod(n.seed(), AGAIN_EVERY) == 0) {
            Outcome again = call(n, c, expected, javaThrew);
            TIMES.calls.addAndGet(System.nanoTime() - t3);
            TIMES.repeated.incrementAndGet();
            if (again.failed()) {
                return Outcome.failed("the second call: " + again.detail());
            }
        }
        return o;
    }

    /** One call through the runtime on fresh arguments, against plain Java's {@code expected} and {@code javaThrew}. */
    private static Outcome call(Nest n, Class<?> c, Object[] expected, Throwable javaThrew) {
        Object[] actual = n.args();
        Throwable threw = null;
        boolean on = false;
        try {
            on = AccRuntime.offload(c, n.method(), n.descriptor(), null, actual);
        } catch (RuntimeException | Error e) {
            threw = e;
        }
        if (!on && threw == null) {
            // the check before the launch refused the call (the runtime said why on stderr); nothing was written
            String untouched = Nest.firstDifference(n.args(), actual, n.params());
            return untouched == null ? new Outcome(Outcome.Kind.HOST_AT_LAUNCH, "the runtime ran the call on the host")
                    : Outcome.failed("the runtime declined the call but changed " + untouched);
        }
        Outcome o = Harness.compare("GPU", n, expected, javaThrew, actual, threw);
        if (o.kind() == Outcome.Kind.THREW) {
            // a call that threw copies nothing back
            String written = Nest.firstDifference(n.args(), actual, n.params());
            if (written != null) {
                return Outcome.failed("GPU threw " + threw + " as Java did, but wrote " + written);
            }
        }
        return o;
    }
}
