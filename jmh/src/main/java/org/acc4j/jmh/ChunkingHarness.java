package org.acc4j.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;

/**
 * Measures the multicore target's chunking against parallel streams in one process: for each benchmark, the streams
 * version and the multicore target with several chunk counts per thread, and a fork/join pool that splits the chunks in
 * halves (as {@code RecursiveAction.invokeAll} does), all on the same arguments, timed in interleaved rounds so that
 * drift of the machine falls on every variant alike. Prints each variant's median time per call, its spread, and the
 * streams version's median divided by it (above 1: faster than the streams).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp benchmarks.jar org.acc4j.jmh.ChunkingHarness ROUNDS SECONDS_PER_ROUND
 * name:size[:serial] ...}, names {@code vectoradd dot jacobi stencil laplacian dgemm spmv}, {@code :serial} adding plain
 * Java and the target on one thread; threads from {@code ACC_NUM_CORES}, else every core.
 */
public final class ChunkingHarness {
    private ChunkingHarness() {
    }

    private record Variant(String name, Supplier<Object> call) {
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        double seconds = Double.parseDouble(args[1]);
        int threads = MulticoreState.threads();
        System.out.println("# " + threads + " threads, " + rounds + " rounds of " + seconds + " s per variant");
        for (String spec : Arrays.asList(args).subList(2, args.length)) {
            String[] p = spec.split(":");
            measure(sample(p[0]), p[1], threads, rounds, seconds, p.length > 2 && p[2].equals("serial"));
        }
    }

    static Sample sample(String name) {
        return switch (name) {
            case "vectoradd" -> VectorAddBench.SAMPLE;
            case "dot" -> DotBench.SAMPLE;
            case "jacobi" -> JacobiBench.SAMPLE;
            case "stencil" -> StencilBench.SAMPLE;
            case "laplacian" -> LaplacianBench.SAMPLE;
            case "dgemm" -> DgemmBench.SAMPLE;
            case "spmv" -> SpmvBench.SAMPLE;
            default -> throw new IllegalArgumentException("no benchmark " + name);
        };
    }

    private static void measure(Sample sample, String size, int threads, int rounds, double seconds,
                                boolean serial) {
        StreamsState streams = new StreamsState(sample) { };
        streams.setUp(size);
        MulticoreState cores = new MulticoreState(sample) { };
        cores.setUp(size, "default");
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("streams", streams::run));
        List<AutoCloseable> pools = new ArrayList<>();
        for (int k : new int[] {1, 2, 4, 8}) {
            Multicore m = new Multicore(threads, k, null, null);
            pools.add(m);
            variants.add(new Variant("blocks k=" + k, () -> cores.run(m)));
        }
        Halves halves = new Halves(threads, 4);
        pools.add(halves);
        variants.add(new Variant("fork/join halves k=4", () -> cores.run(halves)));
        if (serial) {
            SerialState plain = new SerialState(sample) { };
            plain.setUp(size);
            variants.add(new Variant("serial (plain Java)", plain::run));
            Multicore one = new Multicore(1, 1, null, null);
            pools.add(one);
            variants.add(new Variant("target on 1 thread", () -> cores.run(one)));
        }
        double[][] times = new double[variants.size()][rounds];
        for (Variant v : variants) {
            timed(v, seconds);
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < variants.size(); i++) {
                times[i][r] = timed(variants.get(i), seconds);
            }
        }
        double base = median(times[0]);
        System.out.println("== " + sample.name() + " " + size);
        for (int i = 0; i < variants.size(); i++) {
            double[] t = times[i].clone();
            Arrays.sort(t);
            System.out.println(String.format(Locale.ROOT, "%-22s median %9.3f ms  min %9.3f  max %9.3f  streams/this %.3f",
                    variants.get(i).name(), median(times[i]), t[0], t[t.length - 1], base / median(times[i])));
        }
        for (AutoCloseable c : pools) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        cores.tearDown();
    }

    /** Calls for about {@code seconds}; the mean time per call in ms. */
    private static double timed(Variant v, double seconds) {
        long budget = (long) (seconds * 1e9);
        long t0 = System.nanoTime();
        int n = 0;
        Object sink = null;
        while (System.nanoTime() - t0 < budget || n == 0) {
            sink = v.call().get();
            n++;
        }
        long t = System.nanoTime() - t0;
        if (sink == ChunkingHarness.class) {
            System.out.println();
        }
        return t / 1e6 / n;
    }

    private static double median(double[] x) {
        double[] t = x.clone();
        Arrays.sort(t);
        return t.length % 2 == 1 ? t[t.length / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    }

    /** A fork/join pool of {@code threads} workers running the chunks split in halves; the caller waits. */
    static final class Halves implements HostNest.Pool, AutoCloseable {
        private final int threads;
        private final int perThread;
        private final ForkJoinPool pool;

        Halves(int threads, int perThread) {
            this.threads = threads;
            this.perThread = perThread;
            this.pool = new ForkJoinPool(threads);
        }

        @Override
        public int threads() {
            return threads;
        }

        @Override
        public int chunksPerThread() {
            return perThread;
        }

        @Override
        public void run(int chunks, IntConsumer chunk) {
            pool.invoke(new Part(chunk, 0, chunks));
        }

        @Override
        public void close() {
            pool.shutdown();
        }

        private static final class Part extends RecursiveAction {
            private final IntConsumer chunk;
            private final int from;
            private final int to;

            Part(IntConsumer chunk, int from, int to) {
                this.chunk = chunk;
                this.from = from;
                this.to = to;
            }

            @Override
            protected void compute() {
                if (to - from == 1) {
                    chunk.accept(from);
                    return;
                }
                int mid = (from + to) >>> 1;
                invokeAll(new Part(chunk, from, mid), new Part(chunk, mid, to));
            }
        }
    }
}
