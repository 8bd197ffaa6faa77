package org.acc4j.compiler.interp;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.function.Function;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.HostProgram;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Runs a compiled method's kernels on the host the way the GPU runs them: for every block of the grid and
 * every thread of the block, explicitly, each thread executing the region with its mapping's index arithmetic
 * ({@code start = blockIdx * blockDim + threadIdx}, {@code stride = gridDim * blockDim} per level). The grid is
 * the one the runtime would launch, with each axis capped at {@code maxBlocks} so that threads also stride.
 *
 * <p>Threads run one after another, so a race cannot change the result here; instead the interpreter checks
 * for one: an element written by one thread and read or written by another in the same kernel is an error.
 * That is what makes it a test of a mapping, not only of the arithmetic. Atomic accesses ({@code Acc.atomic...})
 * run with {@code Acc}'s own routines, one thread's after another's (a serial order, not Java's); they do not race
 * with each other, but a plain access to an element another thread accesses atomically does.
 */
public final class KernelInterpreter {
    /** Two threads touched one element, one of them writing. */
    public static final class Race extends RuntimeException {
        Race(String message) {
            super(message);
        }
    }

    /**
     * The launch would not happen: a {@code !=} loop does not reach its bound, or a disjointness check failed (the
     * runtime would run the call on the host).
     */
    public static final class HostInstead extends RuntimeException {
        HostInstead(String message) {
            super(message);
        }
    }

    private final CompiledMethod method;
    private final Function<ArrayRef.Source, Object> sources;
    private final Object[] args;
    private final int maxBlocks;
    /** The block each kernel variant launches with (the plan and whether its proofs held), null for its own. */
    private java.util.function.BiFunction<KernelPlan, Boolean, int[]> blockOf;

    private KernelInterpreter(CompiledMethod method, Function<ArrayRef.Source, Object> sources, Object[] args,
                              int maxBlocks) {
        this.method = method;
        // a coloured region's colour order is made at the launch, as the runtime makes it
        this.sources = s -> s instanceof ArrayRef.ColourOrder ? colourOrder : sources.apply(s);
        this.args = args;
        this.maxBlocks = maxBlocks;
    }

    /**
     * Runs every kernel of {@code method} on the arrays themselves.
     *
     * @param sources a parameter's or field's value
     * @param args the call's arguments (scalars by parameter index)
     */
    public static Object run(CompiledMethod method, Function<ArrayRef.Source, Object> sources, Object[] args,
                             int maxBlocks) {
        KernelInterpreter k = new KernelInterpreter(method, sources, args, maxBlocks);
        return k.runAll();
    }

    /** The colour order of the coloured region being run. */
    private int[] colourOrder;

    /**
     * Runs one kernel as the runtime launches it: once, or for a coloured region ({@link Region#colour()}) once per
     * colour of the runtime's colouring ({@link org.acc4j.Colouring#ofRange}), each launch over its colour's range of
     * the order; the race check then holds per launch, so a colour whose iterations met at an element would fail it.
     */
    private long[] launches(KernelPlan plan, Evaluator host) {
        org.acc4j.compiler.ir.ColourPlan c = plan.region().colour();
        if (c == null) {
            return kernel(plan, host);
        }
        Evaluator ev = evaluator(null);
        ev.run(plan.region().devicePrologue());
        int lo = Math.toIntExact(ev.evalLong(c.lower()));
        int hi = Math.toIntExact(ev.evalLong(c.bound()) + (c.inclusive() ? 1 : 0));
        int[][] maps = new int[c.maps().size()][];
        for (int j = 0; j < maps.length; j++) {
            maps[j] = (int[]) sources.apply(c.maps().get(j).source());
        }
        int[] lengths = new int[c.targets().size()];
        for (int j = 0; j < lengths.length; j++) {
            lengths[j] = java.lang.reflect.Array.getLength(sources.apply(c.targets().get(j).array().source()));
        }
        org.acc4j.Colouring colours;
        try {
            colours = org.acc4j.Colouring.ofRange(lo, hi, c.limit(lengths), maps);
        } catch (IllegalArgumentException e) {
            throw new HostInstead(e.getMessage());
        }
        colourOrder = colours.order();
        long[] out = new long[0];
        for (int colour = 0; colour < colours.colours(); colour++) {
            host.set(c.start(), colours.start(colour));
            host.set(c.end(), colours.end(colour));
            out = kernel(plan, host);
        }
        return out;
    }

    /** Runs a static method's kernels with its arguments. */
    public static Object run(CompiledMethod method, Object[] args, int maxBlocks) {
        return run(method, args, maxBlocks, null);
    }

    /**
     * As {@link #run(CompiledMethod, Object[], int)}, each kernel with the block {@code blockOf} gives for its plan and
     * variant (true: the one without the proven checks) in place of its mapping's, as the runtime launches a block
     * shape it times ({@link org.acc4j.compiler.plan.LaunchShapes}); null from {@code blockOf} keeps the mapping's.
     */
    public static Object run(CompiledMethod method, Object[] args, int maxBlocks,
                             java.util.function.BiFunction<KernelPlan, Boolean, int[]> blockOf) {
        KernelInterpreter k = new KernelInterpreter(method, s -> {
            if (s instanceof ArrayRef.Parameter p) {
                return args[p.index()];
            }
            throw new IllegalArgumentException("the field " + s.name() + " (use the sources form)");
        }, args, maxBlocks);
        k.blockOf = blockOf;
        return k.runAll();
    }

    /** Checks every region, then runs the method's host program, each kernel launched as the runtime launches it. */
    private Object runAll() {
        for (KernelPlan plan : method.kernels()) {
            checks(plan.region());
        }
        return HostProgram.run(method, evaluator(null), (n, host) -> launches(method.kernels().get(n), host));
    }

    private Evaluator evaluator(Thread t) {
        Evaluator ev = t == null ? new Evaluator(sources, true) : new ThreadEvaluator(t);
        for (MethodBody.Param p : method.body().params()) {
            Type type = Type.ofDescriptor(p.descriptor());
            if (type != null) {
                ev.set(new Var(p.slot(), type, p.name()), args[p.index()]);
            }
        }
        return ev;
    }

    private void checks(Region r) {
        String why = r.hostReason(evaluator(null), "the launch");
        if (why != null) {
            throw new HostInstead(why);
        }
    }

    // ---------------------------------------------------------------- one kernel

    /**
     * Who touched an element: the plain writer and a plain reader, a thread that updated it atomically and one that
     * read it atomically (thread ids, -1 for none, -2 for several). Atomic accesses do not race with each other.
     */
    private static final class Touch {
        int writer = -1;
        int reader = -1;
        int atomicWriter = -1;
        int atomicReader = -1;
    }

    private static int join(int who, int id) {
        return who == -1 || who == id ? id : -2;
    }

    private static boolean other(int who, int id) {
        return who == -2 || (who >= 0 && who != id);
    }

    /** Per Java array the kernel touches (the arrays themselves, compared by identity as Java compares them), by index. */
    private final Map<Object, Map<Integer, Touch>> touched = new IdentityHashMap<>();

    private Touch touch(Object array, int index) {
        return touched.computeIfAbsent(array, k -> new java.util.HashMap<>()).computeIfAbsent(index, k -> new Touch());
    }

    private record Thread(int id, int[] ctaid, int[] tid, int[] nctaid, int[] ntid) {
    }

    private final class ThreadEvaluator extends Evaluator {
        private final Thread thread;

        ThreadEvaluator(Thread thread) {
            super(sources, true);
            this.thread = thread;
        }

        @Override
        protected void loaded(Expr.Load l, Object array, int index) {
            unprovenAccess(l, l.access(), array, index);
            Touch t = touch(array, index);
            if (t.writer >= 0 && t.writer != thread.id) {
                throw new Race("thread " + thread.id + " reads " + l + " (element " + index + ") written by thread "
                        + t.writer);
            }
            if (other(t.atomicWriter, thread.id)) {
                throw new Race("thread " + thread.id + " reads " + l + " (element " + index + ") plainly, which another"
                        + " thread updates atomically");
            }
            t.reader = t.reader == -1 || t.reader == thread.id ? thread.id : -2;
        }
    }

    /**
     * The accesses whose checks the launched variant leaves out (the runtime's choice: all proofs hold), by
     * access id; one that goes out of bounds here means a proof was wrong, a compiler bug.
     */
    private final Set<Integer> unchecked = new java.util.HashSet<>();

    private void unprovenAccess(Object node, int access, Object array, int index) {
        if (unchecked.contains(access) && (index < 0 || index >= java.lang.reflect.Array.getLength(array))) {
            throw new AssertionError("acc4j compiler bug: the bounds proof of " + node + " held, but index " + index
                    + " is out of bounds for length " + java.lang.reflect.Array.getLength(array));
        }
    }

    /** Runs one kernel over its grid; returns its reductions' results as the device would give them. */
    private long[] kernel(KernelPlan plan, Evaluator host) {
        Region r = plan.region();
        unchecked.clear();
        boolean proven = plan.provenInBounds(host, a -> sources.apply(a.source()));
        if (proven) {
            plan.unchecked().checks().forEach(c -> unchecked.add(c.access()));
            if (plan.unchecked().tiled() != null) {
                // the tiled kernel, with its shared memory and barriers (it has no reductions)
                int[] grid = plan.launchMapping(true).grid(host, maxBlocks, maxBlocks);
                if (grid != null) {
                    new TiledRun(sources, host).run(plan.unchecked().tiled(), grid);
                }
                return new long[0];
            }
            if (plan.unchecked().marched() != null) {
                // the marched nest, as the variant's kernel runs it
                r = plan.unchecked().marched();
                // its accesses (the copies an unrolled window made among them) are all covered by the proofs
                unchecked.addAll(org.acc4j.compiler.pass.Marching.accesses(r));
            }
        }
        touched.clear();
        if (r.scan() != null) {
            return scan(r, host);
        }
        Mapping m = r.mapping();
        int[] other = blockOf == null ? null : blockOf.apply(plan, proven);
        if (other != null) {
            m = m.withBlock(other);
        }
        List<Reduction> reductions = r.reductions();
        int[] grid = m.grid(host, maxBlocks, maxBlocks);
        if (grid == null) {
            // no launch: every reduction gives its identity
            long[] none = new long[reductions.size()];
            for (int j = 0; j < none.length; j++) {
                none[j] = reductions.get(j).identityBits();
            }
            return none;
        }
        int[] block = m.block();
        int threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
        long[][] privates = new long[reductions.size()][threads];
        int id = 0;
        for (int bz = 0; bz < grid[2]; bz++) {
            for (int by = 0; by < grid[1]; by++) {
                for (int bx = 0; bx < grid[0]; bx++) {
                    for (int tz = 0; tz < block[2]; tz++) {
                        for (int ty = 0; ty < block[1]; ty++) {
                            for (int tx = 0; tx < block[0]; tx++) {
                                Thread t = new Thread(id, new int[] {bx, by, bz}, new int[] {tx, ty, tz}, grid, block);
                                Evaluator ev = evaluator(t);
                                for (Var v : r.hostVars()) {
                                    ev.set(v, host.get(v));
                                }
                                ev.run(r.devicePrologue());
                                for (Reduction red : reductions) {
                                    ev.set(red.var(), red.fromBits(red.identityBits()));
                                }
                                statement(r.loop(), r, t, ev);
                                for (int j = 0; j < reductions.size(); j++) {
                                    privates[j][id] = reductions.get(j).toBits(ev.get(reductions.get(j).var()));
                                }
                                id++;
                            }
                        }
                    }
                }
            }
        }
        long[] out = new long[reductions.size()];
        for (int j = 0; j < out.length; j++) {
            var routine = reductions.get(j).routine();
            out[j] = org.acc4j.templates.reduce.ReduceOrder.combine(routine.op(), routine.kind(), privates[j], block, grid);
        }
        return out;
    }

    /**
     * A scan region as the device scan computes it ({@link org.acc4j.templates.scan.ScanOrder}): Java's bounds checks
     * at the first index and at the first index past an array's end, in the order of the iteration's accesses, then
     * every element of the output at once.
     */
    private long[] scan(Region r, Evaluator host) {
        org.acc4j.compiler.ir.Scan sc = r.scan();
        Evaluator ev = evaluator(null);
        for (Var v : r.hostVars()) {
            ev.set(v, host.get(v));
        }
        ev.run(r.devicePrologue());
        int lo = (Integer) ev.eval(r.loop().lower());
        int ub = (Integer) ev.eval(r.loop().bound());
        if (lo >= ub) {
            return new long[0];
        }
        Object in = ev.array(sc.input().array(), null);
        Object out = ev.array(sc.output().array(), null);
        List<Object> order = sc.inclusive() ? List.of(in, out) : List.of(out, in);
        List<Object> nodes = sc.inclusive() ? List.of(sc.input(), sc.output()) : List.of(sc.output(), sc.input());
        int[] accesses = sc.inclusive() ? new int[] {sc.input().access(), sc.output().access()}
                : new int[] {sc.output().access(), sc.input().access()};
        int firstPast = Math.min(java.lang.reflect.Array.getLength(in), java.lang.reflect.Array.getLength(out));
        for (int index : ub > firstPast ? new int[] {lo, firstPast} : new int[] {lo}) {
            for (int k = 0; k < 2; k++) {
                unprovenAccess(nodes.get(k), accesses[k], order.get(k), index);
                Evaluator.checkIndex(order.get(k), index);
            }
        }
        Reduction red = new Reduction(sc.var(), sc.op(), sc.line());
        long[] bits = new long[ub - lo];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = red.toBits(java.lang.reflect.Array.get(in, lo + i));
        }
        var routine = sc.routine();
        long[] result = org.acc4j.templates.scan.ScanOrder.scan(routine.op(), routine.kind(), routine.inclusive(),
                red.toBits(ev.get(sc.var())), bits);
        for (int i = 0; i < result.length; i++) {
            Evaluator.store(out, lo + i, red.fromBits(result[i]));
        }
        return new long[0];
    }

    /** Runs {@code stmts}; true when one of them broke out of the innermost {@link Stmt.While}. */
    private boolean statements(List<Stmt> stmts, Region r, Thread t, Evaluator ev) {
        for (Stmt s : stmts) {
            if (statement(s, r, t, ev)) {
                return true;
            }
        }
        return false;
    }

    private boolean statement(Stmt s, Region r, Thread t, Evaluator ev) {
        return s.accept(new Step(r, t, ev));
    }

    /** One statement run by one thread: one method per kind of statement; true when it breaks out of a loop. */
    private final class Step implements Stmt.Visitor<Boolean> {
        private final Region r;
        private final Thread t;
        private final Evaluator ev;

        Step(Region r, Thread t, Evaluator ev) {
            this.r = r;
            this.t = t;
            this.ev = ev;
        }

        @Override
        public Boolean visit(Stmt.Assign a) {
            ev.set(a.var(), ev.eval(a.value()));
            return false;
        }

        @Override
        public Boolean visit(Stmt.Store st) {
            Object array = ev.array(st.array(), st.row());
            int index = (Integer) ev.eval(st.index());
            Object value = ev.eval(st.value());
            unprovenAccess(st, st.access(), array, index);
            Evaluator.checkIndex(array, index);
            Evaluator.store(array, index, value);
            Touch touch = touch(array, index);
            if ((touch.writer >= 0 && touch.writer != t.id) || touch.reader == -2
                    || (touch.reader >= 0 && touch.reader != t.id) || other(touch.atomicWriter, t.id)
                    || other(touch.atomicReader, t.id)) {
                throw new Race("thread " + t.id + " writes " + st.array().name() + " element " + index
                        + " that another thread touched (line " + st.line() + ")");
            }
            touch.writer = t.id;
            return false;
        }

        @Override
        public Boolean visit(Stmt.Atomic at) {
            Object array = ev.array(at.array(), at.row());
            int index = (Integer) ev.eval(at.index());
            List<Object> operands = new java.util.ArrayList<>();
            for (Expr e : at.operands()) {
                operands.add(ev.eval(e));
            }
            Evaluator.checkIndex(array, index);
            Touch touch = touch(array, index);
            if (other(touch.writer, t.id) || (at.op().writes() && other(touch.reader, t.id))) {
                throw new Race("thread " + t.id + " accesses " + at.array().name() + " element " + index
                        + " atomically, which another thread accesses plainly (line " + at.line() + ")");
            }
            if (at.op().writes()) {
                touch.atomicWriter = join(touch.atomicWriter, t.id);
            } else {
                touch.atomicReader = join(touch.atomicReader, t.id);
            }
            Object old = org.acc4j.compiler.ir.AtomicEval.apply(at.op(), array, index, operands);
            if (at.result() != null) {
                ev.set(at.result(), old);
            }
            return false;
        }

        @Override
        public Boolean visit(Stmt.If i) {
            return statements((Boolean) ev.eval(i.cond()) ? i.then() : i.otherwise(), r, t, ev);
        }

        @Override
        public Boolean visit(Stmt.Break x) {
            return true;
        }

        @Override
        public Boolean visit(Stmt.While w) {
            while ((Boolean) ev.eval(w.cond())) {
                if (statements(w.body(), r, t, ev)) {
                    break;
                }
            }
            return false;
        }

        @Override
        public Boolean visit(Stmt.For f) {
            Mapping.Level level = r.mapping().levelOf(f);
            if (level != null && level.outer() == f) {
                parallel(level, r, t, ev);
            } else {
                ev.set(f.index(), ev.eval(f.lower()));
                Expr test = new Expr.Compare(f.cond(), new Expr.Local(f.index()), f.bound(), false);
                while ((Boolean) ev.eval(test)) {
                    statements(f.body(), r, t, ev);
                    Object v = ev.get(f.index());
                    ev.set(f.index(), v instanceof Integer x ? (Object) (int) (x + f.step()) : (Object) ((Long) v + f.step()));
                }
            }
            return false;
        }

        @Override
        public Boolean visit(Stmt.Return x) {
            // the method's return runs on the host, after the last region
            return false;
        }
    }

    /** One level of the mapping, as the PTX runs it. */
    private void parallel(Mapping.Level level, Region r, Thread t, Evaluator ev) {
        List<Stmt.For> loops = level.loops();
        long[] lo = new long[loops.size()];
        long[] trips = new long[loops.size()];
        long total = 1;
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For f = loops.get(q);
            lo[q] = ev.evalLong(f.lower());
            trips[q] = Evaluator.tripCount(lo[q], f.cond(), ev.evalLong(f.bound()), f.step());
            total *= trips[q];
        }
        int g = level.gridAxis();
        int b = level.blockAxis();
        long start = (g >= 0 ? (long) t.ctaid[g] * (b >= 0 ? t.ntid[b] : 1) : 0) + (b >= 0 ? t.tid[b] : 0);
        long stride = (long) (g >= 0 ? t.nctaid[g] : 1) * (b >= 0 ? t.ntid[b] : 1);
        for (long it = start; it < total; it += stride) {
            long rest = it;
            for (int q = loops.size() - 1; q >= 0; q--) {
                long tq = q == 0 ? rest : rest % trips[q];
                rest = q == 0 ? rest : rest / trips[q];
                long index = lo[q] + tq * loops.get(q).step();
                Stmt.For f = loops.get(q);
                ev.set(f.index(), f.index().type() == Type.I32 ? (Object) (int) index : (Object) index);
            }
            statements(level.inner().body(), r, t, ev);
        }
    }
}
