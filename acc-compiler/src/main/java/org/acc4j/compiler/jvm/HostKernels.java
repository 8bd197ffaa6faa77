package org.acc4j.compiler.jvm;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.HostProgram;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.templates.reduce.ReduceOrder;

/**
 * A compiled method's kernels as JVM bytecode ({@link JvmEmitter}), run on the host's cores: the multicore target.
 * A call runs the method's host statements as the GPU path does ({@link HostProgram}); each nest's outermost parallel
 * level is cut into chunks that a {@link Pool} runs.
 *
 * <p><b>Chunks.</b> For a level of {@code trip} iterations (its collapsed loops in their linear order) and a pool of
 * {@code threads}, there are {@code min(trip, k * threads)} chunks, {@code k} the pool's
 * {@linkplain Pool#chunksPerThread chunks per thread} ({@value #CHUNKS_PER_THREAD} by default), or
 * {@value #REDUCTION_CHUNKS_PER_THREAD} for a nest with a reduction; chunk {@code c} runs the iterations from
 * {@code c * (trip / chunks) + min(c, trip % chunks)} on, {@code trip / chunks} of them plus one for the first
 * {@code trip % chunks} chunks. The chunking depends on the trip count, the thread count and {@code k} only, never on
 * timing; threads done with their own chunks take the others' (see the pool), so that {@code k} chunks per thread even
 * out threads slowed by other work while each chunk stays long against its cost (a call and its bounds).
 *
 * <p><b>Reductions.</b> Each chunk accumulates its iterations in order from the operator's identity; the chunks'
 * partial values are then combined left to right, chunk 0 first: {@code ((p0 op p1) op p2) ...}, with the device's
 * combining operation (a max or min as {@link Math#max} and {@link Math#min} give it); the host finally combines the
 * variable's value before the loop with that result, as on the GPU. A run's bits depend on the trip count and the
 * thread count only.
 *
 * <p><b>Exceptions.</b> A chunk runs its iterations in Java's order and stops at its first exception; the call throws
 * the exception of the lowest chunk that threw, which is the first in Java's iteration order, with Java's type and
 * message. Nothing is left written by a call that threw, as on the GPU: a nest that may throw (an access whose bounds
 * the host could not prove for the call, an integer division by a variable, an atomic operation) first saves the
 * arrays it writes ({@link WrittenArrays}: a copy made in parallel on the pool, into buffers kept for the nest's next
 * call, or, for an array written only at the chunked loop's index, each chunk's own range just before it runs), runs
 * in place, and copies the saved contents back when a chunk threw. A nest that cannot throw (every access proven in
 * bounds before the run, no division by a variable) runs in place with nothing saved.
 *
 * <p><b>Coloured nests</b> ({@code @Loop(increments = COLOUR)}) run colour by colour with the GPU path's colouring
 * ({@link HostColours}), each colour's positions in the colour order chunked as above, the colours one after the
 * other (a call that threw runs the iterations again in Java's order to throw Java's first exception).
 */
public final class HostKernels {
    /** The nest must run as plain Java this time (a loop or disjointness check failed, an array is null or aliased). */
    public static final class HostInstead extends RuntimeException {
        public HostInstead(String message) {
            super(message, null, false, false);
        }
    }

    /** Bytecode the backend could not produce for a nest: it runs as plain Java, with this reason. */
    public static final class Unsupported extends RuntimeException {
        Unsupported(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Runs chunks on threads. */
    public interface Pool {
        /** The threads that run chunks (the chunking follows it). */
        int threads();

        /** Runs {@code chunk.accept(c)} for every {@code c} in {@code [0, chunks)}; returns when all are done. */
        void run(int chunks, IntConsumer chunk);

        /**
         * Chunks per thread of a nest without a reduction (at least 1): {@link #CHUNKS_PER_THREAD} unless the pool
         * says otherwise; a nest with a reduction has {@link #REDUCTION_CHUNKS_PER_THREAD}.
         */
        default int chunksPerThread() {
            return CHUNKS_PER_THREAD;
        }

        /**
         * Chunks per thread of a nest with a reduction (at least 1): {@link #REDUCTION_CHUNKS_PER_THREAD}, which the
         * runtime's pools keep, so that a reduction's rounding follows the thread count only; a pool that says
         * otherwise (a measurement of the chunking) changes a floating-point reduction's bits.
         */
        default int reductionChunksPerThread() {
            return REDUCTION_CHUNKS_PER_THREAD;
        }

        /**
         * Whether a chunk saves, just before it runs, its own range of an array the nest writes only at the chunked
         * loop's index ({@link WrittenArrays}); true unless the pool says otherwise (a measurement of that saving:
         * false saves every written array whole before the run).
         */
        default boolean savesByChunk() {
            return true;
        }
    }

    /**
     * One nest's run, for the report and the profile: {@code inPlace} when it could not throw (nothing saved);
     * {@code order} the loops' order ({@code j | k | i}) when the run reordered them ({@link LoopOrder}), else null;
     * {@code colours} the colours a coloured nest ran (its trip and chunks summed over them), 0 for another nest.
     */
    public record Launch(int kernel, int line, long trip, int chunks, int threads, boolean inPlace, long nanos,
                         String order, int colours) {
    }

    /**
     * Chunks per thread of a nest without a reduction, by default: enough that the threads finishing early take
     * chunks from the slower ones until little is left, few enough that each chunk is long against its cost (a call, a
     * microsecond). On the GPU machine's 16 cores, against parallel streams in the same process (the chunking
     * harness), 16 per thread ran the memory-bound nests (vector add, Jacobi, the stencils, the CSR mat-vec) up to 6%
     * faster than 8, which ran them 5-10% faster than 4; 32 gained nothing more.
     */
    public static final int CHUNKS_PER_THREAD = 16;

    /**
     * Chunks per thread of a nest with a reduction, whatever the runtime's pool says: the chunks' partial values are
     * combined in order, so a floating-point result's rounding depends on this count; it is fixed so that a run's bits
     * depend on the trip count and the thread count only, never on timing. Measured as for {@link #CHUNKS_PER_THREAD}:
     * the dot product of 2^27 doubles ran 9% faster with 16 per thread than with 4, and level with 8.
     */
    public static final int REDUCTION_CHUNKS_PER_THREAD = 16;

    private static final ThreadLocal<Throwable> LAST = new ThreadLocal<>();

    private final CompiledMethod method;
    private final List<Kernel> kernels;

    private record Kernel(KernelPlan plan, JvmKernel code, List<ArrayRef> arrays, List<Var> inputs,
                          List<Expr.FieldValue> fields, boolean[] mayThrow, Set<ArrayRef> written,
                          java.util.concurrent.atomic.AtomicReference<Object[]> spare, String order,
                          HostColours colours, boolean[] writtenAt, boolean[] byChunk) {
    }

    private HostKernels(CompiledMethod method, List<Kernel> kernels) {
        this.method = method;
        this.kernels = kernels;
    }

    /**
     * Generates and loads the bytecode of every kernel of {@code m}.
     *
     * @throws Unsupported naming the construct and line this backend does not translate
     */
    public static HostKernels of(CompiledMethod m) {
        List<Var> params = new ArrayList<>();
        for (MethodBody.Param p : m.body().params()) {
            Type t = Type.ofDescriptor(p.descriptor());
            if (t != null) {
                params.add(new Var(p.slot(), t, p.name()));
            }
        }
        List<Kernel> out = new ArrayList<>();
        for (KernelPlan k : m.kernels()) {
            Region r = k.region();
            if (r.colour() != null && (!r.colour().lowered() || !r.reductions().isEmpty())) {
                throw new Unsupported(m.body().displayName() + " (line " + r.loop().line() + "): the loop over "
                        + r.colour().item().name() + " is coloured but not lowered over its colour order", null);
            }
            JvmEmitter e = new JvmEmitter(r, params, k.unchecked() != null
                    && k.unchecked().tiled() instanceof org.acc4j.compiler.pass.Tiling.Matmul mm ? mm : null);
            Set<Integer> proven = new java.util.HashSet<>();
            if (k.unchecked() != null) {
                for (RangeCheck c : k.unchecked().checks()) {
                    proven.add(c.access());
                }
            }
            String where = m.body().displayName() + " (line " + r.loop().line() + ")";
            JvmKernel code;
            try {
                String name = JvmEmitter.BASE.substring(0, JvmEmitter.BASE.lastIndexOf('/') + 1) + "Nest";
                byte[] bytes = e.emit(name, proven);
                MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
                code = (JvmKernel) lookup.findConstructor(lookup.lookupClass(),
                        java.lang.invoke.MethodType.methodType(void.class)).invoke();
            } catch (JvmEmitter.Unsupported u) {
                throw new Unsupported(where + ": the multicore backend does not translate " + u.getMessage(), null);
            } catch (Throwable t) {
                throw new Unsupported(where + ": its bytecode could not be generated (" + t + ")", t);
            }
            Set<ArrayRef> written = new java.util.LinkedHashSet<>();
            writes(List.of(r.loop()), written);
            writes(r.prologue(), written);
            out.add(new Kernel(k, code, e.arrays, e.inputs, e.fields, e.mayThrow.clone(), written,
                    new java.util.concurrent.atomic.AtomicReference<>(),
                    e.orderNote, r.colour() == null ? null : new HostColours(), writtenAt(e.arrays, written),
                    r.colour() == null ? ChunkWrites.of(r, e.chunked, e.arrays, written) : null));
        }
        return new HostKernels(m, List.copyOf(out));
    }

    public CompiledMethod method() {
        return method;
    }

    /** Whether {@code t} is an exception a nest raised (Java's semantics), as opposed to a failure of this backend. */
    public static boolean raisedByKernel(Throwable t) {
        return t != null && LAST.get() == t;
    }

    /**
     * Runs a call: the host statements in order, each nest on {@code pool}.
     *
     * @param sources a parameter's or field's value
     * @param args the call's arguments (scalars boxed, booleans and chars as they come)
     * @param launches receives each nest's run, or null
     * @return as {@link HostProgram#run}
     * @throws HostInstead when a check before a nest says it must run as plain Java (before anything ran)
     */
    public Object run(Function<ArrayRef.Source, Object> sources, Object[] args, Pool pool,
                      java.util.function.Consumer<Launch> launches) {
        Object[] scalars = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            scalars[i] = scalar(args[i]);
        }
        for (Kernel k : kernels) {
            checks(k, sources, scalars);
        }
        Evaluator host = evaluator(sources, scalars);
        return HostProgram.run(method, host, (n, ev) -> launch(kernels.get(n), n, ev, sources, scalars, pool, launches));
    }

    private Evaluator evaluator(Function<ArrayRef.Source, Object> sources, Object[] scalars) {
        Evaluator ev = new Evaluator(sources);
        for (MethodBody.Param p : method.body().params()) {
            Type type = Type.ofDescriptor(p.descriptor());
            if (type != null) {
                ev.set(new Var(p.slot(), type, p.name()), scalars[p.index()]);
            }
        }
        return ev;
    }

    /** The checks the GPU path makes before a launch: {@code !=} and strided loops, disjoint writes, arrays. */
    private void checks(Kernel k, Function<ArrayRef.Source, Object> sources, Object[] scalars) {
        Region r = k.plan().region();
        Evaluator ev = evaluator(sources, scalars);
        String why = r.hostReason(ev, "the run");
        if (why != null) {
            throw new HostInstead(why);
        }
        // every array present, and an array the nest writes reachable through none of its other arrays (rows too)
        Map<Object, Integer> seen = new IdentityHashMap<>();
        List<Object> values = new ArrayList<>();
        for (ArrayRef a : k.arrays()) {
            if (a.source() instanceof ArrayRef.ColourOrder) {
                values.add(null); // made at the launch
                continue;
            }
            Object v = sources.apply(a.source());
            if (v == null) {
                throw new HostInstead("the array " + a.name() + " is null");
            }
            values.add(v);
            for (Object leaf : leaves(a, v)) {
                if (leaf == null) {
                    throw new HostInstead("a row of " + a.name() + " is null");
                }
                seen.merge(leaf, 1, Integer::sum);
            }
        }
        for (int i = 0; i < k.arrays().size(); i++) {
            ArrayRef a = k.arrays().get(i);
            if (k.written().contains(a) && values.get(i) != null) {
                List<Object> leaves = leaves(a, values.get(i));
                long[] rows = null;
                for (int row = 0; row < leaves.size(); row++) {
                    if (seen.get(leaves.get(row)) > 1) {
                        // a shared row the nest only reads is fine (rows outside those its stores reach)
                        if (a.dims() == 2 && rows == null) {
                            rows = written().of(a, evaluator(sources, scalars));
                            rows = rows == null ? new long[] {0, Long.MAX_VALUE} : rows;
                        }
                        if (a.dims() == 1 || row >= rows[0] && row <= rows[1]) {
                            throw new HostInstead("the nest writes " + a.name() + ", which it can also reach another"
                                    + " way");
                        }
                    }
                }
            }
        }
    }

    /** The rows each two-dimensional array the method's kernel may write, made at the first need. */
    private volatile org.acc4j.compiler.pass.WrittenRows writtenRows;

    private org.acc4j.compiler.pass.WrittenRows written() {
        org.acc4j.compiler.pass.WrittenRows w = writtenRows;
        if (w == null) {
            List<Region> regions = new ArrayList<>();
            for (KernelPlan p : method.kernels()) {
                regions.add(p.region());
            }
            w = new org.acc4j.compiler.pass.WrittenRows(method.body(), regions);
            writtenRows = w;
        }
        return w;
    }

    private static List<Object> leaves(ArrayRef a, Object v) {
        return a.dims() == 1 ? List.of(v) : java.util.Arrays.asList((Object[]) v);
    }

    private long[] launch(Kernel k, int n, Evaluator ev, Function<ArrayRef.Source, Object> sources, Object[] scalars,
                          Pool pool, java.util.function.Consumer<Launch> launches) {
        if (k.colours() != null) {
            return launchColoured(k, n, ev, sources, scalars, pool, launches);
        }
        long t0 = System.nanoTime();
        KernelPlan plan = k.plan();
        Region r = plan.region();
        List<Reduction> reds = r.reductions();
        Object[] arrays = arrays(k, sources, null);
        long[] inputs = inputs(k, ev, sources, scalars);
        boolean proven = plan.provenInBounds(ev, a -> sources.apply(a.source()));
        boolean inPlace = !k.mayThrow()[proven ? 1 : 0];
        WrittenArrays saved = null;
        if (!inPlace) {
            Long lower = k.byChunk() == null || !pool.savesByChunk() ? null
                    : ChunkWrites.lower(r, bounds(k, ev, sources, scalars));
            saved = WrittenArrays.save(k.spare(), k.writtenAt(), arrays, lower == null ? null : k.byChunk(),
                    lower == null ? 0 : lower, pool);
        }
        long trip;
        try {
            trip = k.code().trip(proven, arrays, inputs);
        } catch (RuntimeException | Error e) {
            if (saved != null) {
                saved.release();
            }
            throw raised(e);
        }
        long[] out = new long[reds.size()];
        for (int j = 0; j < out.length; j++) {
            out[j] = reds.get(j).identityBits();
        }
        int threads = Math.max(1, pool.threads());
        int chunks = 0;
        if (trip > 0) {
            chunks = chunks(trip, threads, reds.isEmpty() ? pool.chunksPerThread() : pool.reductionChunksPerThread());
            long[][] partials = new long[chunks][reds.size()];
            if (saved != null) {
                saved.chunks(chunks, trip);
            }
            Throwable t = runChunks(k, proven, arrays, inputs, trip, chunks, partials, pool, saved);
            if (t != null) {
                if (saved != null) {
                    saved.restore(pool);
                    saved.release();
                }
                throw raised(t);
            }
            for (int j = 0; j < out.length; j++) {
                var routine = reds.get(j).routine();
                long v = partials[0][j];
                for (int c = 1; c < chunks; c++) {
                    v = ReduceOrder.apply(routine.op(), routine.kind(), v, partials[c][j]);
                }
                out[j] = v;
            }
        }
        if (saved != null) {
            saved.release();
        }
        if (launches != null) {
            launches.accept(new Launch(n, r.loop().line(), trip, chunks, threads, inPlace, System.nanoTime() - t0,
                    proven ? k.order() : null, 0));
        }
        return out;
    }

    /**
     * A coloured nest ({@code @Loop(increments = COLOUR)}): the colours in order, each colour's iterations (positions
     * {@code start..end-1} of the colour order) cut into chunks on the pool as any nest's, the pool's return the barrier
     * between two colours. No two iterations of a colour reach one element through the index arrays, so a colour's
     * chunks write disjoint elements, and every element sees its increments in colour order: the same in every run on
     * the same index arrays, whatever the thread count, and the GPU's order. When a chunk throws, the arrays the nest
     * writes are restored and its iterations run again in Java's order on the calling thread, so that the call throws
     * Java's first exception, with nothing written; should that run end normally, its result, plain Java's, stays.
     */
    private long[] launchColoured(Kernel k, int n, Evaluator ev, Function<ArrayRef.Source, Object> sources,
                                  Object[] scalars, Pool pool, java.util.function.Consumer<Launch> launches) {
        long t0 = System.nanoTime();
        Region r = k.plan().region();
        org.acc4j.compiler.ir.ColourPlan c = r.colour();
        HostColours.Call call = k.colours().colouring(r, bounds(k, ev, sources, scalars), sources, pool);
        org.acc4j.Colouring col = call.colouring();
        Object[] arrays = arrays(k, sources, col.order());
        boolean inPlace = !k.mayThrow()[0];
        WrittenArrays saved = inPlace ? null : WrittenArrays.save(k.spare(), k.writtenAt(), arrays, null, 0, pool);
        int threads = Math.max(1, pool.threads());
        long trips = 0;
        int chunksRun = 0;
        Throwable error = null;
        for (int colour = 0; colour < col.colours() && error == null; colour++) {
            ev.set(c.start(), col.start(colour));
            ev.set(c.end(), col.end(colour));
            long[] inputs = inputs(k, ev, sources, scalars);
            long trip;
            try {
                trip = k.code().trip(false, arrays, inputs);
            } catch (RuntimeException | Error e) {
                error = e;
                break;
            }
            if (trip > 0) {
                int chunks = chunks(trip, threads, pool.chunksPerThread());
                error = runChunks(k, false, arrays, inputs, trip, chunks, new long[chunks][0], pool, null);
                trips += trip;
                chunksRun += chunks;
            }
        }
        if (error != null && saved == null) {
            // nothing in the nest could throw: not Java's exception, and nothing to restore
            throw raised(error);
        }
        if (error != null) {
            saved.restore(pool);
            Object[] java = arrays(k, sources, HostColours.javaOrder(call.lo(), call.hi()));
            ev.set(c.start(), 0);
            ev.set(c.end(), Math.max(0, call.hi() - call.lo()));
            long[] inputs = inputs(k, ev, sources, scalars);
            Throwable first = null;
            try {
                long trip = k.code().trip(false, java, inputs);
                if (trip > 0) {
                    k.code().chunk(false, java, inputs, 0, trip, new long[0]);
                }
            } catch (Throwable t) {
                first = t;
            }
            if (first != null) {
                saved.restore(pool);
                saved.release();
                throw raised(first);
            }
        }
        if (saved != null) {
            saved.release();
        }
        if (launches != null) {
            launches.accept(new Launch(n, r.loop().line(), trips, chunksRun, threads, inPlace,
                    System.nanoTime() - t0, null, col.colours()));
        }
        return new long[0];
    }

    /** Whether each array (by position) is one the nest writes. */
    private static boolean[] writtenAt(List<ArrayRef> arrays, Set<ArrayRef> written) {
        boolean[] out = new boolean[arrays.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = written.contains(arrays.get(i));
        }
        return out;
    }

    /**
     * An evaluator of the region's bounds: the parameters, the host values the program computed before the nest
     * ({@code ev}), then the region's device prologue (what it cannot evaluate stays unset).
     */
    private Evaluator bounds(Kernel k, Evaluator ev, Function<ArrayRef.Source, Object> sources, Object[] scalars) {
        Region r = k.plan().region();
        Evaluator out = evaluator(sources, scalars);
        for (Var v : r.hostVars()) {
            if (ev.get(v) != null) {
                out.set(v, ev.get(v));
            }
        }
        return out;
    }

    /** The nest's arrays for a call, the colour order {@code order} for a coloured nest's. */
    private static Object[] arrays(Kernel k, Function<ArrayRef.Source, Object> sources, int[] order) {
        Object[] arrays = new Object[k.arrays().size()];
        for (int i = 0; i < arrays.length; i++) {
            ArrayRef.Source s = k.arrays().get(i).source();
            arrays[i] = s instanceof ArrayRef.ColourOrder ? order : sources.apply(s);
        }
        return arrays;
    }

    /** The nest's scalar inputs as raw bits: its host values and parameters, then the fields it reads. */
    private long[] inputs(Kernel k, Evaluator ev, Function<ArrayRef.Source, Object> sources, Object[] scalars) {
        Region r = k.plan().region();
        long[] inputs = new long[k.inputs().size() + k.fields().size()];
        for (int i = 0; i < k.inputs().size(); i++) {
            Var v = k.inputs().get(i);
            Object value;
            if (r.hostVars().contains(v)) {
                value = ev.get(v);
            } else {
                MethodBody.Param p = method.body().paramAtSlot(v.slot());
                value = p == null ? null : scalars[p.index()];
            }
            if (value == null) {
                throw new HostInstead("the value of " + v.name() + " at the loop of line " + r.loop().line()
                        + " is not known on the host");
            }
            inputs[i] = bits(v.type(), value);
        }
        for (int i = 0; i < k.fields().size(); i++) {
            Expr.FieldValue f = k.fields().get(i);
            inputs[k.inputs().size() + i] = bits(f.type(), scalar(sources.apply(f.field())));
        }
        return inputs;
    }

    /**
     * Runs a level of {@code trip} iterations as {@code chunks} chunks on the pool, each chunk's reduction partials in
     * {@code partials[c]}; the exception of the lowest chunk that threw (the first in the level's order), or null.
     */
    private static Throwable runChunks(Kernel k, boolean proven, Object[] arrays, long[] inputs, long trip, int chunks,
                                       long[][] partials, Pool pool, WrittenArrays saved) {
        Throwable[] errors = new Throwable[chunks];
        AtomicInteger failed = new AtomicInteger(Integer.MAX_VALUE);
        long size = trip / chunks;
        long extra = trip % chunks;
        pool.run(chunks, c -> {
            if (c > failed.get()) {
                return; // an earlier chunk threw: this one's work cannot matter
            }
            long lo = c * size + Math.min(c, extra);
            long hi = lo + size + (c < extra ? 1 : 0);
            if (saved != null) {
                saved.beforeChunk(c, lo, hi);
            }
            try {
                k.code().chunk(proven, arrays, inputs, lo, hi, partials[c]);
            } catch (Throwable t) {
                errors[c] = t;
                failed.accumulateAndGet(c, Math::min);
            }
        });
        for (Throwable t : errors) {
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** The chunk count of a nest with a reduction, for a level of {@code trip} iterations on {@code threads}. */
    public static int chunks(long trip, int threads) {
        return chunks(trip, threads, REDUCTION_CHUNKS_PER_THREAD);
    }

    /** The chunk count for a level of {@code trip} iterations on {@code threads}, {@code perThread} each. */
    public static int chunks(long trip, int threads, int perThread) {
        long c = Math.min(trip, (long) Math.max(1, perThread) * threads);
        // a chunk's iterations are counted in an int
        c = Math.max(c, (trip + Integer.MAX_VALUE - 1) / Integer.MAX_VALUE);
        return (int) Math.max(1, c);
    }

    /** The exception a nest raised, as Java raises it; remembered so the caller can tell it from a failure of ours. */
    private static RuntimeException raised(Throwable t) {
        Throwable java = t;
        if (t.getClass() == IndexOutOfBoundsException.class) {
            // Objects.checkIndex's exception, for an array access: Java's is an ArrayIndexOutOfBoundsException
            java = new ArrayIndexOutOfBoundsException(t.getMessage());
            java.setStackTrace(t.getStackTrace());
        }
        if (java instanceof RuntimeException || java instanceof StackOverflowError) {
            // Java's own exceptions of the nest's code; anything else (a linkage error) is a failure of this backend
            LAST.set(java);
        }
        if (java instanceof RuntimeException e) {
            throw e;
        }
        if (java instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(java);
    }

    private static long bits(Type t, Object v) {
        return switch (t) {
            case I32, PRED -> v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).intValue() & 0xFFFFFFFFL;
            case I64 -> ((Number) v).longValue();
            case F32 -> Float.floatToRawIntBits((Float) v) & 0xFFFFFFFFL;
            case F64 -> Double.doubleToRawLongBits((Double) v);
        };
    }

    /** A scalar as the IR computes with it (booleans, bytes, shorts and chars as int). */
    static Object scalar(Object v) {
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof Character c) {
            return (int) c;
        }
        if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).intValue();
        }
        return v;
    }

    private static void writes(List<Stmt> stmts, Set<ArrayRef> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                out.add(st.array());
            } else if (s instanceof Stmt.Atomic at) {
                if (at.op() != AtomicOp.READ) {
                    out.add(at.array());
                }
            } else if (s instanceof Stmt.If i) {
                writes(i.then(), out);
                writes(i.otherwise(), out);
            } else if (s instanceof Stmt.While w) {
                writes(w.body(), out);
            } else if (s instanceof Stmt.For f) {
                writes(f.body(), out);
            }
        }
    }
}
