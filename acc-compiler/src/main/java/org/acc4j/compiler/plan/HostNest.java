package org.acc4j.compiler.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.jvm.HostKernels;

/**
 * A compiled method's nests as JVM bytecode for the host's cores ({@link HostKernels}): what the multicore target
 * runs. Each nest's outermost parallel level is cut into chunks that a {@link Pool} runs. Thread-safe.
 */
public final class HostNest {
    /** Runs chunks on threads. */
    public interface Pool {
        /** The threads that run chunks (the chunking follows it). */
        int threads();

        /** Chunks per thread of a nest without a reduction (at least 1). */
        int chunksPerThread();

        /**
         * Chunks per thread of a nest with a reduction: {@link #REDUCTION_CHUNKS_PER_THREAD}, which the runtime keeps
         * so that a reduction's rounding follows the thread count only; another count is for measuring the chunking.
         */
        default int reductionChunksPerThread() {
            return REDUCTION_CHUNKS_PER_THREAD;
        }

        /**
         * Whether a chunk saves its own range of an array its nest writes only at the chunked index just before it
         * runs (true), rather than every written array whole before the run; false is for measuring that saving.
         */
        default boolean savesByChunk() {
            return true;
        }

        /** Runs {@code chunk.accept(c)} for every {@code c} in {@code [0, chunks)}; returns when all are done. */
        void run(int chunks, IntConsumer chunk);
    }

    /**
     * One nest's run, for the report and the profile: {@code inPlace} when it could not throw (nothing saved);
     * {@code order} the loops' order when the run reordered them, else null; {@code colours} the colours a coloured
     * nest ran one after the other (its trip and chunks summed over them), 0 for another nest.
     */
    public record Run(int kernel, int line, long trip, int chunks, int threads, boolean inPlace, long nanos,
                      String order, int colours) {
    }

    /** The method has a nest this backend does not translate: it runs as plain Java, for the reason given. */
    public static final class Untranslated extends Exception {
        Untranslated(String message) {
            super(message, null, false, false);
        }
    }

    /** A check before a nest says this call must run as plain Java (nothing ran). */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** Chunks per thread of a nest without a reduction, by default ({@link HostKernels#CHUNKS_PER_THREAD}). */
    public static final int CHUNKS_PER_THREAD = HostKernels.CHUNKS_PER_THREAD;

    /** Chunks per thread of a nest with a reduction, always ({@link HostKernels#REDUCTION_CHUNKS_PER_THREAD}). */
    public static final int REDUCTION_CHUNKS_PER_THREAD = HostKernels.REDUCTION_CHUNKS_PER_THREAD;

    private final HostKernels kernels;
    private final List<ArrayUse> arrays;
    private final Map<ArrayRef.Source, ValueSource> fields = new ConcurrentHashMap<>();
    /** The compiler's view of the last pool a call ran on (one per target, so made once). */
    private volatile PoolView view;

    private final CompiledMethod method;
    /** The parameters the nests use as objects ({@link Sources#holders}). */
    private final Map<Integer, String> holders;
    /** The overridable methods expanded into the nests ({@link Overrides}). */
    private final Overrides overrides;

    private HostNest(CompiledMethod method, HostKernels kernels, List<ArrayUse> arrays, Map<Integer, String> holders,
                     Overrides overrides) {
        this.method = method;
        this.kernels = kernels;
        this.arrays = arrays;
        this.holders = holders;
        this.overrides = overrides;
    }

    /**
     * Generates and loads the bytecode of every nest of {@code m}.
     *
     * @throws Untranslated naming the construct and line this backend does not translate
     */
    public static HostNest of(CompiledMethod m) throws Untranslated {
        HostKernels k;
        try {
            k = HostKernels.of(m);
        } catch (HostKernels.Unsupported u) {
            throw new Untranslated(u.getMessage());
        }
        Map<ArrayRef, Boolean> written = new LinkedHashMap<>();
        for (KernelPlan kp : m.kernels()) {
            for (KernelParam p : kp.params()) {
                if (p instanceof KernelParam.ArrayData d) {
                    written.merge(d.array(), d.written(), Boolean::logicalOr);
                }
            }
        }
        List<ArrayUse> uses = new ArrayList<>();
        for (Map.Entry<ArrayRef, Boolean> e : written.entrySet()) {
            ArrayRef a = e.getKey();
            if (a.source() instanceof ArrayRef.ColourOrder) {
                continue; // made at each call from the index arrays
            }
            uses.add(new ArrayUse(uses.size(), a.name(), Sources.of(a.source()), a.dims(), e.getValue()));
        }
        return new HostNest(m, k, List.copyOf(uses), Sources.holders(m), new Overrides(m.guards().virtuals()));
    }

    /** The arrays its nests use, in the order of their parameters, each with whether a nest writes it. */
    public List<ArrayUse> arrays() {
        return arrays;
    }

    /** The device plan of the same method, for {@link #writtenRows}; made at the first need. */
    private volatile MethodLaunch launch;

    /**
     * The least and greatest row of the two-dimensional array {@code a} (one of {@link #arrays()}) that a call with
     * {@code self} and {@code args} may write ({@link MethodLaunch#writtenRows}), or null when that cannot be told.
     */
    public long[] writtenRows(ArrayUse a, ValueReader reader, Object self, Object[] args) {
        MethodLaunch l = launch;
        if (l == null) {
            l = MethodLaunch.of(method);
            launch = l;
        }
        for (ArrayUse u : l.arrays()) {
            if (u.name().equals(a.name()) && u.source().equals(a.source())) {
                HostCall call = l.begin(reader, self, args);
                return call.refusal() != null ? null : l.writtenRows(u.index(), call);
            }
        }
        return null;
    }

    /** Whether {@code t} is an exception a nest raised (Java's semantics), as opposed to a failure of this backend. */
    public static boolean raisedByKernel(Throwable t) {
        return HostKernels.raisedByKernel(t);
    }

    /**
     * Runs a call: the host statements in order, each nest on {@code pool}.
     *
     * @param reader reads the fields the nests name
     * @param runs receives each nest's run, or null
     * @return the method's value (boxed), null for a void method, or a launch site's live-out values as an
     *     {@code Object[]}
     * @throws Refused when a check before a nest says it must run as plain Java (before anything ran)
     */
    public Object run(ValueReader reader, Object self, Object[] args, Pool pool, Consumer<Run> runs) throws Refused {
        String nul = holders.isEmpty() ? null : Sources.nullHolder(holders, args);
        if (nul == null) {
            nul = overrides.refusal(self, args, holders);
        }
        if (nul != null) {
            throw new Refused(nul);
        }
        PoolView v = view;
        if (v == null || v.pool != pool) {
            v = new PoolView(pool);
            view = v;
        }
        try {
            return kernels.run(s -> s instanceof ArrayRef.Parameter p ? args[p.index()]
                    : reader.value(fields.computeIfAbsent(s, Sources::of), self, args), args, v,
                    runs == null ? null : l -> runs.accept(new Run(l.kernel(), l.line(), l.trip(), l.chunks(),
                            l.threads(), l.inPlace(), l.nanos(), l.order(), l.colours())));
        } catch (HostKernels.HostInstead h) {
            throw new Refused(h.getMessage());
        }
    }

    private record PoolView(Pool pool) implements HostKernels.Pool {
        @Override
        public int threads() {
            return pool.threads();
        }

        @Override
        public void run(int chunks, IntConsumer chunk) {
            pool.run(chunks, chunk);
        }

        @Override
        public int chunksPerThread() {
            return pool.chunksPerThread();
        }

        @Override
        public int reductionChunksPerThread() {
            return pool.reductionChunksPerThread();
        }

        @Override
        public boolean savesByChunk() {
            return pool.savesByChunk();
        }
    }
}
