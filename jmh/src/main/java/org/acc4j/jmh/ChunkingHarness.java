package org.acc4j.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;
import org.acc4j.samples.PairedStats;

/**
 * Measures the multicore target against parallel streams in one process, on the same arguments: for each benchmark
 * the streams version and the target as the runtime runs it, with optional other chunkings, timed in interleaved
 * rounds. Each round runs every variant for a slot of about {@code SECONDS} (after one untimed call that wakes its
 * threads), in an order shuffled per round from a fixed seed, so that neither drift of the machine nor a variant's
 * place in the round favours one. Every variant runs on the same arrays, those of the streams version, after each
 * was checked against plain Java on a copy of its own.
 *
 * <p>Each variant's figure is the median over the rounds of its <em>paired</em> ratio, the streams version's mean
 * time per call in that round divided by the variant's (above 1: faster than the streams), with a distribution-free
 * 95% confidence interval of that median: the order statistics {@code j} and {@code n + 1 - j} of the {@code n}
 * rounds' ratios, {@code j} the largest rank with {@code P(Binomial(n, 1/2) < j) <= 0.025}. A line per variant
 * {@code RATIO name size variant median [low, high]} is what the run script collects; a line {@code VS ...} gives each
 * further variant against the first one named, paired the same way (above 1: faster than the first).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp benchmarks.jar org.acc4j.jmh.ChunkingHarness ROUNDS SECONDS_PER_SLOT
 * name:size[:variant,...] ...}, names {@code vectoradd dot jacobi stencil laplacian wave13pt dgemm spmv}; variants (the
 * target's own, {@code mc}, when none is given): {@code mc} (as the runtime runs it), {@code kN} ({@code N} chunks per
 * thread for a nest without a reduction), {@code rN} ({@code N} per thread for a nest with one: its rounding changes
 * with it), {@code whole} (a nest that may throw saves every array it writes whole before the run, not an array
 * written only at the chunked index chunk by chunk), {@code halves} (the target's chunks on a fork/join pool that
 * splits them in halves, as {@code RecursiveAction.invokeAll} does), {@code serial} (plain Java on the calling thread)
 * and {@code one} (the target on one thread). Threads from {@code ACC_NUM_CORES}, else every core.
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
        System.out.println("# " + threads + " threads, " + rounds + " rounds of " + seconds
                + " s per variant, the order shuffled per round; Java " + System.getProperty("java.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " processors, heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        for (String spec : Arrays.asList(args).subList(2, args.length)) {
            String[] p = spec.split(":");
            List<String> variants = p.length > 2 ? List.of(p[2].split(",")) : List.of("mc");
            measure(p[0], p[1], threads, rounds, seconds, variants);
        }
    }

    static Sample sample(String name) {
        return switch (name) {
            case "vectoradd" -> VectorAddBench.SAMPLE;
            case "dot" -> DotBench.SAMPLE;
            case "jacobi" -> JacobiBench.SAMPLE;
            case "stencil" -> StencilBench.SAMPLE;
            case "laplacian" -> LaplacianBench.SAMPLE;
            case "wave13pt" -> Wave13ptBench.SAMPLE;
            case "dgemm" -> DgemmBench.SAMPLE;
            case "spmv" -> SpmvBench.SAMPLE;
            default -> throw new IllegalArgumentException("no benchmark " + name);
        };
    }

    private static void measure(String name, String size, int threads, int rounds, double seconds,
                                List<String> names) {
        Sample sample = sample(name);
        StreamsState streams = new StreamsState(sample) { };
        streams.setUp(size);
        MulticoreState cores = new MulticoreState(sample) { };
        cores.setUp(size, "default");
        // both on the very same arrays (each checked on its own copy at its setup): the nests write their outputs
        // from their inputs only, so each call writes the same values
        cores.args = streams.args;
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("streams", streams::run));
        List<AutoCloseable> pools = new ArrayList<>();
        for (String v : names) {
            variants.add(variant(v, sample, size, threads, cores, pools));
        }
        int n = variants.size();
        double[][] times = new double[n][rounds];
        // warm-up: every variant until C2 has compiled its loops, in the order the rounds use
        for (int w = 0; w < 3; w++) {
            for (Variant v : variants) {
                timed(v, seconds);
            }
        }
        Random order = new Random(17);
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            slots.add(i);
        }
        for (int r = 0; r < rounds; r++) {
            Collections.shuffle(slots, order);
            for (int i : slots) {
                times[i][r] = timed(variants.get(i), seconds);
            }
        }
        System.out.println("== " + sample.name() + " " + size + " (" + rounds + " rounds)");
        for (int i = 0; i < n; i++) {
            double[] ratio = ratios(times[0], times[i]);
            double[] t = times[i].clone();
            Arrays.sort(t);
            PairedStats.Interval ci = PairedStats.medianIntervalOrExtremes(ratio);
            System.out.println(String.format(Locale.ROOT,
                    "%-22s median %9.3f ms  min %9.3f  max %9.3f  streams/this %.3f [%.3f, %.3f]",
                    variants.get(i).name(), PairedStats.median(times[i]), t[0], t[t.length - 1], ci.median(), ci.low(),
                    ci.high()));
        }
        for (int i = 1; i < n; i++) {
            double[] ratio = ratios(times[0], times[i]);
            PairedStats.Interval ci = PairedStats.medianIntervalOrExtremes(ratio);
            System.out.println(String.format(Locale.ROOT, "RATIO %-10s %-12s %-8s %.3f [%.3f, %.3f]", name, size,
                    variants.get(i).name(), ci.median(), ci.low(), ci.high()));
        }
        // each further variant against the first one named (the target as shipped, when it is mc), paired per round
        for (int i = 2; i < n; i++) {
            double[] ratio = ratios(times[1], times[i]);
            PairedStats.Interval ci = PairedStats.medianIntervalOrExtremes(ratio);
            System.out.println(String.format(Locale.ROOT, "VS    %-10s %-12s %-8s %.3f [%.3f, %.3f] of %s", name, size,
                    variants.get(i).name(), ci.median(), ci.low(), ci.high(), variants.get(1).name()));
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

    private static Variant variant(String v, Sample sample, String size, int threads, MulticoreState cores,
                                   List<AutoCloseable> pools) {
        if (v.equals("mc")) {
            return new Variant(v, cores::run);
        }
        if (v.equals("serial")) {
            SerialState plain = new SerialState(sample) { };
            plain.setUp(size);
            plain.args = cores.args;
            return new Variant(v, plain::run);
        }
        if (v.equals("one")) {
            Multicore one = new Multicore(1, 1, null, null);
            pools.add(one);
            return new Variant(v, () -> cores.run(one));
        }
        if (v.equals("halves")) {
            Halves halves = new Halves(threads, MulticoreState.chunksPerThread());
            pools.add(halves);
            return new Variant(v, () -> cores.run(halves));
        }
        if (v.matches("[kr][0-9]+") || v.equals("whole")) {
            boolean whole = v.equals("whole");
            int k = whole ? MulticoreState.chunksPerThread() : Integer.parseInt(v.substring(1));
            boolean reduction = v.charAt(0) == 'r';
            Multicore m = new Multicore(threads, reduction ? MulticoreState.chunksPerThread() : k, null, null);
            pools.add(m);
            HostNest.Pool on = new HostNest.Pool() {
                @Override
                public int threads() {
                    return m.threads();
                }

                @Override
                public int chunksPerThread() {
                    return m.chunksPerThread();
                }

                @Override
                public int reductionChunksPerThread() {
                    return reduction ? k : HostNest.REDUCTION_CHUNKS_PER_THREAD;
                }

                @Override
                public boolean savesByChunk() {
                    return !whole;
                }

                @Override
                public void run(int chunks, IntConsumer chunk) {
                    m.run(chunks, chunk);
                }
            };
            if (reduction) {
                // another chunk count adds in another order: check this one's result against plain Java too
                Object[] own = cores.workload.freshArgs();
                cores.workload.clearOutputs(own);
                Object[] shared = cores.args;
                cores.args = own;
                cores.workload.check(sample.name() + " multicore " + v, own, cores.run(on));
                cores.args = shared;
            }
            return new Variant(v, () -> cores.run(on));
        }
        throw new IllegalArgumentException("no variant " + v + " (mc, kN, rN, whole, halves, serial, one)");
    }

    /** One untimed call, then calls for about {@code seconds} (at least two); the mean time per call in ms. */
    private static double timed(Variant v, double seconds) {
        Object sink = v.call().get();
        long budget = (long) (seconds * 1e9);
        long t0 = System.nanoTime();
        int n = 0;
        while (System.nanoTime() - t0 < budget || n < 2) {
            sink = v.call().get();
            n++;
        }
        long t = System.nanoTime() - t0;
        if (sink == ChunkingHarness.class) {
            System.out.println();
        }
        return t / 1e6 / n;
    }

    /** The paired ratios {@code over[r] / times[r]} of each round. */
    private static double[] ratios(double[] over, double[] times) {
        double[] ratio = new double[times.length];
        for (int r = 0; r < ratio.length; r++) {
            ratio[r] = over[r] / times[r];
        }
        return ratio;
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
