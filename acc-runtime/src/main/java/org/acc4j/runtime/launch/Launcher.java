package org.acc4j.runtime.launch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.HostProgram;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.plan.AsyncClause;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.Event;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.data.Aliasing;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.OutOfDeviceMemoryException;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.data.QueuedHolds;
import org.acc4j.runtime.async.Queue;
import org.acc4j.runtime.async.Queues;
import org.acc4j.runtime.profile.Profiler;
import org.acc4j.runtime.tune.Tuner;

/**
 * Runs one call of an offloaded method: binds its arrays and scalars, enters its data clauses, launches its
 * kernels in order, turns a kernel's error record into the exception Java would throw, and exits the data
 * clauses (copying back only when every kernel succeeded).
 *
 * <p>Launches are serialised on this object, and run under the device lock of {@link Guard}: one error record and
 * one reduction scratch serve every kernel, whatever thread calls. Data that does not fit on the device sends the
 * call to the host ({@link HostInstead}) when no kernel of it has run yet; nothing allocated for the call is kept.
 *
 * <p><b>Async calls</b> ({@code @Kernels(async = ...)}, see {@link AsyncClause}): the call enters its data clauses
 * now (data not present yet is allocated and copied in synchronously), queues its kernels on the queue's stream,
 * each with an error record of its own whose words are copied to pinned memory after it, and returns. At the wait
 * ({@link Queues}) the records are read: a kernel's error becomes its Java exception, thrown by the wait, and then
 * the call's arrays are exited without copying back; otherwise they are exited as a synchronous call does (copy and
 * copyout clauses copy back then). A method that returns a value or has a reduction needs its results on the host
 * at once: it runs synchronously, said once. A call with {@code waitOn} first makes its queue wait, on the device,
 * for the queues it names ({@link Queues#waitOn}). Every synchronous call first waits for all queues. The launcher owns
 * the queues and frees them in {@link #close()}.
 */
public final class Launcher implements AutoCloseable {
    /** A call that must run on the host instead, and why. */
    public static final class HostInstead extends Exception {
        private final String kind;

        public HostInstead(String reason) {
            this(reason, reason);
        }

        /** A reason whose details vary between calls; {@code kind} is said once per method. */
        public HostInstead(String reason, String kind) {
            super(reason, null, false, false);
            this.kind = kind;
        }

        /** What is reported once per method. */
        public String kind() {
            return kind;
        }
    }

    private final Device device;
    private final Context context;
    private final PresentTable table;
    /** The error record and the launch parameters in mapped memory. */
    private final LaunchMemory memory;
    private final ReductionScratch scratch = new ReductionScratch();
    /** The time profile and its two events around each launch; all null when profiling is off. */
    private final Profiler profile;
    private final Event started;
    private final Event finished;
    /** Takes the report's line on a kernel's first launch whose grid depends on run-time values; null when off. */
    private final Consumer<String> report;

    /** Lanes per row for row-group kernels. */
    private final RowLaneChooser rowLanes;
    private final Set<String> launched = new HashSet<>();
    /** Set by {@link #abandon}: the device is lost, and nothing here may touch it again. */
    private boolean abandoned;
    /** The async queues, and the methods already told that their async clause is not followed. */
    private final Queues queues = new Queues();
    /** The references async calls in flight hold, released at their waits. */
    private final QueuedHolds holds = new QueuedHolds();
    private final Set<String> saidSync = new HashSet<>();
    /** Times block shapes on synchronous launches ({@link Tuner}); null when autotuning is off. */
    private Tuner tuner;
    /** The last Java exception a kernel raised, to tell it from a failure of the runtime itself. */
    private volatile Throwable lastKernelException;

    public Launcher(Device device, Context context, PresentTable table) {
        this(device, context, table, null, null);
    }

    /**
     * @param profile the time profile, or null: then no CUDA event is created and launches are not timed
     * @param report takes the report's line on the first launch of a kernel whose grid is computed at launch
     *               (null when the report is off)
     */
    public Launcher(Device device, Context context, PresentTable table, Profiler profile, Consumer<String> report) {
        this(device, context, table, profile, report, true);
    }

    /**
     * @param mapped whether the error record and the launch parameters live in mapped pinned memory (when the device
     *               can map it): no copy after a launch, nothing allocated per launch
     */
    public Launcher(Device device, Context context, PresentTable table, Profiler profile, Consumer<String> report,
                    boolean mapped) {
        this.device = device;
        this.context = context;
        this.table = table;
        this.profile = profile;
        this.report = report;
        this.memory = new LaunchMemory(device, mapped);
        this.rowLanes = new RowLaneChooser(report);
        Event start = null;
        Event end = null;
        if (profile != null) {
            try {
                start = Event.create("before a kernel");
                end = Event.create("after a kernel");
            } catch (RuntimeException e) {
                if (start != null) {
                    start.close();
                }
                memory.close();
                throw e;
            }
        }
        this.started = start;
        this.finished = end;
    }

    /**
     * Runs {@code m} on the device, or throws {@link HostInstead} before anything is launched; returns the
     * method's value (boxed; null for a void method).
     */
    public synchronized Object run(OffloadedMethod m, Object self, Object[] args) throws HostInstead {
        return run(m, self, args, null);
    }

    /**
     * The data of a {@code @Kernels} call around its launch sites: arrays stay on the device from a call's first use
     * to its end, and move only where host code needs them.
     */
    public interface Scope {
        /**
         * Before a site's clause for {@code array} (named {@code name} in the nest) is entered: the scope makes it
         * present, or current on the device.
         */
        void adopt(Object array, String name, Clause clause);

        /** After a site's kernels all ran: they may have written {@code array}. */
        void written(Object array);
    }

    /**
     * As {@link #run(OffloadedMethod, Object, Object[])}, for a launch site inside {@code scope} (null for none): the
     * scope sees each array before its clause is entered, and each array the kernels wrote once they all succeeded.
     */
    public synchronized Object run(OffloadedMethod m, Object self, Object[] args, Scope scope) throws HostInstead {
        int queue = scope != null ? org.acc4j.Acc.ASYNC_SYNC : queueOf(m, args);
        if (queue != org.acc4j.Acc.ASYNC_SYNC) {
            context.makeCurrent();
            queues.waitOn(m.async().waitOn(), queue);
            runAsync(m, self, args, queues.get(queue));
            return null;
        }
        context.makeCurrent();
        // a synchronous call sees everything queued before it
        queues.finishAll();
        table.drainCollected();
        Map<ArrayRef, Object> arrays = bind(m, self, args);
        long[] trips = new long[m.plan().kernels().size()];
        long[] lowers = new long[trips.length];
        Evaluator[] evaluators = checkBeforeLaunch(m, self, args, trips, lowers);
        List<Object> entered = new ArrayList<>();
        List<Clause> clauses = new ArrayList<>();
        boolean[] launched = {false};
        Object value;
        try {
            if (scope != null) {
                for (DataClause c : m.plan().data()) {
                    Object array = arrays.get(c.array());
                    scope.adopt(array, c.array().name(), clause(c, array, m, evaluators, trips, lowers));
                }
            }
            enterClauses(m, arrays, evaluators, trips, lowers, entered, clauses);
            value = HostProgram.run(m.plan(), evaluator(m, self, args), (k, ev) -> {
                long[] results = launch(m, k, ev, arrays, self, args, null, null);
                launched[0] = true;
                return results;
            });
        } catch (Throwable t) {
            // nothing goes back to the host; this call's buffers are freed (and failures to free kept with t)
            exitAll(entered, clauses, false, t);
            if (t instanceof OutOfDeviceMemoryException oom && !launched[0]) {
                throw hostInstead(oom);
            }
            throw t;
        }
        exitAll(entered, clauses, true, null);
        if (scope != null) {
            for (KernelPlan k : m.plan().kernels()) {
                for (KernelParam p : k.params()) {
                    if (p instanceof KernelParam.ArrayData d && d.written()) {
                        scope.written(arrays.get(d.array()));
                    }
                }
            }
        }
        return value;
    }

    /**
     * Enters the call's data clauses in order, adding each array and its clause to {@code entered} and {@code clauses}
     * as it is entered (so a failure exits exactly those), then marks the arrays its kernels may write.
     */
    private void enterClauses(OffloadedMethod m, Map<ArrayRef, Object> arrays, Evaluator[] evaluators, long[] trips,
                              long[] lowers, List<Object> entered, List<Clause> clauses) {
        for (DataClause c : m.plan().data()) {
            Object array = arrays.get(c.array());
            Clause clause = clause(c, array, m, evaluators, trips, lowers);
            table.enter(array, clause);
            entered.add(array);
            clauses.add(clause);
        }
        markWritten(m, arrays);
    }

    /** A call whose data did not fit, before any of its kernels ran: it runs on the host instead. */
    private static HostInstead hostInstead(OutOfDeviceMemoryException oom) {
        return new HostInstead("not enough device memory: " + oom.getMessage().replace("acc4j: out of device memory: ",
                ""), "out of device memory");
    }

    /**
     * Tells the present table which arrays the call's kernels may write: a fault from here on loses what they write
     * into arrays that stay present after the call.
     */
    private void markWritten(OffloadedMethod m, Map<ArrayRef, Object> arrays) {
        for (KernelPlan k : m.plan().kernels()) {
            for (KernelParam p : k.params()) {
                if (p instanceof KernelParam.ArrayData d && d.written()) {
                    table.markWritten(arrays.get(d.array()));
                }
            }
        }
    }

    /** Times block shapes from now on; the launcher closes it. */
    public synchronized void tuner(Tuner t) {
        this.tuner = t;
    }

    /** Whether {@code t} is the Java exception a kernel raised (Java's semantics), not a failure of the runtime. */
    public boolean raisedByKernel(Throwable t) {
        return t != null && t == lastKernelException;
    }

    /** The async queues this launcher owns (call under the device lock). */
    public Queues queues() {
        return queues;
    }

    /** A kernel queued by an async call: which variant ran (for its error sites) and its error record. */
    private record Queued(KernelPlan plan, boolean proven, Queue.ErrorSlot slot) {
    }

    /**
     * The queue of this call, or {@code ASYNC_SYNC} when it runs synchronously: no async clause, or one that cannot
     * be followed (said once per method and reason, as a warning).
     */
    private int queueOf(OffloadedMethod m, Object[] args) {
        AsyncClause a = m.async();
        if (a.synchronous() && a.problem() == null) {
            return org.acc4j.Acc.ASYNC_SYNC;
        }
        String why = a.problem();
        int q = org.acc4j.Acc.ASYNC_SYNC;
        int line = m.plan().kernels().isEmpty() ? 0 : m.kernel(0).region().loop().line();
        if (why == null) {
            try {
                q = a.queue(args);
            } catch (IllegalArgumentException e) {
                why = e.getMessage();
            }
        }
        if (why == null && q != org.acc4j.Acc.ASYNC_SYNC) {
            if (!m.plan().body().descriptor().endsWith(")V")) {
                why = "it returns a value, which the host needs when the call returns";
            } else {
                for (KernelPlan k : m.plan().kernels()) {
                    if (!k.region().reductions().isEmpty()) {
                        why = "it has a reduction, whose result the host needs when the call returns";
                        line = k.region().loop().line();
                        break;
                    }
                    if (k.region().scan() != null) {
                        why = "it has a scan, whose tile state one launch at a time uses";
                        line = k.region().loop().line();
                        break;
                    }
                }
            }
        }
        if (why != null) {
            String kind = why.replaceAll("-?\\d+ is not a queue", "N is not a queue");
            if (saidSync.add(m.displayName() + "|" + kind)) {
                org.acc4j.runtime.Log.warning(m.displayName() + " (" + m.plan().body().sourceFile()
                        + (line > 0 ? ":" + line : "") + "): @Kernels(" + a.clause() + "): runs synchronously: " + why);
            }
            return org.acc4j.Acc.ASYNC_SYNC;
        }
        return q;
    }

    /**
     * An async call: enters its data clauses now, queues its kernels on {@code q} and leaves the rest to the wait
     * (see the class comment). Throws {@link HostInstead} before anything is queued.
     */
    private void runAsync(OffloadedMethod m, Object self, Object[] args, Queue q) throws HostInstead {
        context.makeCurrent();
        table.drainCollected();
        Map<ArrayRef, Object> arrays = bind(m, self, args);
        long[] trips = new long[m.plan().kernels().size()];
        long[] lowers = new long[trips.length];
        Evaluator[] evaluators = checkBeforeLaunch(m, self, args, trips, lowers);
        List<Object> entered = new ArrayList<>();
        List<Clause> clauses = new ArrayList<>();
        List<Queued> queued = new ArrayList<>();
        boolean held = false;
        try {
            enterClauses(m, arrays, evaluators, trips, lowers, entered, clauses);
            for (int i = 0; i < entered.size(); i++) {
                holds.entered(entered.get(i), clauses.get(i));
            }
            held = true;
            HostProgram.run(m.plan(), evaluator(m, self, args), (k, ev) -> launch(m, k, ev, arrays, self, args, q,
                    queued));
        } catch (Throwable t) {
            // kernels already queued may still use the buffers: let them end before the call's data is dropped
            try {
                q.stream().synchronize("the kernels of " + m.displayName() + " before its failure is handled");
            } catch (RuntimeException e) {
                t.addSuppressed(e);
            }
            for (Queued k : queued) {
                q.recycle(k.slot());
            }
            if (held) {
                exitQueued(entered, clauses, false, t);
            } else {
                exitAll(entered, clauses, false, t);
            }
            if (t instanceof OutOfDeviceMemoryException oom && queued.isEmpty()) {
                throw hostInstead(oom);
            }
            throw t;
        }
        q.then(failed -> {
            RuntimeException error = null;
            for (Queued k : queued) {
                long[] record = k.slot().read();
                q.recycle(k.slot());
                int code = (int) record[0];
                if (code != 0 && error == null) {
                    error = KernelErrors.javaException(k.plan(), k.proven(), code, record[1], arrays);
                }
            }
            try {
                // after a kernel's error, here or earlier on the queue, nothing goes back to the host
                exitQueued(entered, clauses, error == null && !failed, error);
            } catch (RuntimeException e) {
                return e;
            }
            return error;
        });
    }

    /**
     * Exits every entered array in reverse order (copying back when {@code ok}), going on past failures: they are
     * added to {@code pending}, or thrown at the end when there is none.
     */
    private void exitAll(List<Object> entered, List<Clause> clauses, boolean ok, Throwable pending) {
        RuntimeException failure = null;
        for (int i = entered.size() - 1; i >= 0; i--) {
            try {
                if (ok) {
                    table.exit(entered.get(i), clauses.get(i));
                } else {
                    table.discard(entered.get(i));
                }
            } catch (RuntimeException e) {
                if (pending != null) {
                    pending.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@link #exitAll} for an async call at its wait, through {@link QueuedHolds} (see there). */
    private void exitQueued(List<Object> entered, List<Clause> clauses, boolean ok, Throwable pending) {
        RuntimeException failure = null;
        for (int i = entered.size() - 1; i >= 0; i--) {
            try {
                if (ok) {
                    holds.exit(table, entered.get(i), clauses.get(i));
                } else {
                    holds.discard(table, entered.get(i), clauses.get(i));
                }
            } catch (RuntimeException e) {
                if (pending != null) {
                    pending.addSuppressed(e);
                } else if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Forgets the error record and the reduction scratch without freeing them, after their context was destroyed
     * (a sticky fault), and allocates a new error record in the fresh context, current on this thread.
     */
    public synchronized void deviceLost() {
        queues.abandon();
        holds.clear();
        memory.renew();
        scratch.abandon();
    }

    /** What the present table knows of bound arrays' rows (see {@link Aliasing.Known}). */
    private final Aliasing.Known knownRows = new Aliasing.Known() {
        @Override
        public boolean ownRows(Object rank2) {
            return table.ownRows(rank2);
        }

        @Override
        public boolean mayBeRow(Object rank1) {
            return table.listedAsRow(rank1);
        }
    };

    /**
     * The row lengths of one launch's proofs: for a present array whose rows are its table's, the shortest row's
     * length the table noted (asked once per array and launch), so no row is read; for any other the proof reads them.
     */
    private org.acc4j.compiler.ir.RangeCheck.RowLengths rowLengths() {
        return new org.acc4j.compiler.ir.RangeCheck.RowLengths() {
            /** Made at the first two-dimensional array: a launch of one-dimensional arrays allocates no map. */
            private Map<Object, Integer> known;

            @Override
            public int least(Object rows) {
                if (known == null) {
                    known = new java.util.IdentityHashMap<>(4);
                }
                return known.computeIfAbsent(rows, table::leastRowLength);
            }
        };
    }

    private Map<ArrayRef, Object> bind(OffloadedMethod m, Object self, Object[] args) throws HostInstead {
        Map<ArrayRef, Object> arrays = new LinkedHashMap<>();
        Map<ArrayRef, Boolean> written = m.arraysWritten();
        List<Aliasing.Use> uses = new ArrayList<>(written.size());
        for (Map.Entry<ArrayRef, Boolean> e : written.entrySet()) {
            Object value = m.sources().value(e.getKey().source(), self, args);
            uses.add(new Aliasing.Use(e.getKey().name(), value, e.getValue()));
            arrays.put(e.getKey(), value);
        }
        // arrays whose device-side changes an earlier fault lost: their host copies are stale
        for (Object value : arrays.values()) {
            String lost = value == null ? null : table.lostArray(value);
            if (lost != null) {
                throw org.acc4j.runtime.cuda.DeviceLostException.array(m.displayName(), lost, null);
            }
        }
        // null arrays and rows; arrays (rank-2 rows included) reachable twice where the region writes one
        // rows present as one block and unchanged since are known distinct: no row is visited
        String problem = Aliasing.problem(uses, knownRows);
        if (problem != null) {
            throw new HostInstead(problem);
        }
        return arrays;
    }

    /**
     * The host's side of every region before anything is launched: its evaluator (after its prologue), its outer
     * loop's trip count and lower bound (-1 and 0 when unknown), and the checks the compiler left to the launch
     * ({@link LaunchChecks#check}); a failed check throws {@link HostInstead}, and the call runs on the host.
     */
    static Evaluator[] checkBeforeLaunch(OffloadedMethod m, Object self, Object[] args, long[] trips, long[] lowers)
            throws HostInstead {
        Evaluator[] evaluators = new Evaluator[m.plan().kernels().size()];
        for (int k = 0; k < evaluators.length; k++) {
            evaluators[k] = evaluator(m, self, args);
            trips[k] = tripCount(m.kernel(k).region(), evaluators[k], lowers, k);
            LaunchChecks.check(m.kernel(k).region(), evaluators[k]);
        }
        return evaluators;
    }

    private static Evaluator evaluator(OffloadedMethod m, Object self, Object[] args) {
        Evaluator ev = new Evaluator(source -> m.sources().value(source, self, args));
        for (MethodBody.Param p : m.plan().body().params()) {
            Type t = Type.ofDescriptor(p.descriptor());
            if (t != null) {
                ev.set(new Var(p.slot(), t, p.name()), Sources.scalar(args[p.index()]));
            }
        }
        return ev;
    }

    /** The loop's trip count evaluated on the host, or -1 when it depends on device data. */
    private static long tripCount(Region r, Evaluator ev, long[] lowers, int k) {
        try {
            ev.run(r.devicePrologue());
            long lo = ev.evalLong(r.loop().lower());
            long ub = ev.evalLong(r.loop().bound());
            lowers[k] = lo;
            return Evaluator.tripCount(lo, r.loop().cond(), ub, r.loop().step());
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return -1;
        }
    }

    /** The runtime clause; an implicit copyout becomes copy unless the loop provably writes every element. */
    private static Clause clause(DataClause c, Object array, OffloadedMethod m, Evaluator[] evs, long[] trips,
                                 long[] lowers) {
        switch (c.kind()) {
            case COPYIN:
                return Clause.COPYIN;
            case COPY:
                return Clause.COPY;
            case CREATE:
                return Clause.CREATE;
            case PRESENT:
                return Clause.PRESENT;
            default:
                break;
        }
        if (!c.explicit() && c.array().dims() == 2) {
            // no coverage analysis for rows yet: unwritten elements must keep their values
            return Clause.COPY;
        }
        DataClause.Coverage cov = c.coverage();
        if (c.explicit() || cov == null) {
            return c.explicit() ? Clause.COPYOUT : Clause.COPY;
        }
        int k = cov.region();
        if (trips[k] < 0) {
            return Clause.COPY;
        }
        try {
            long offset = evs[k].evalLong(cov.offset());
            long first = lowers[k] + offset;
            long last = first + trips[k] - 1;
            int length = java.lang.reflect.Array.getLength(array);
            return first <= 0 && last >= length - 1 ? Clause.COPYOUT : Clause.COPY;
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return Clause.COPY;
        }
    }

    /**
     * Launches region {@code k} with the host's values at its loop; returns its reductions' result bits. With a
     * {@code queue} (an async call, which has no reductions) the kernel goes on its stream with an error record of its
     * own, added to {@code queued}, and nothing is waited for.
     */
    private long[] launch(OffloadedMethod m, int k, Evaluator ev, Map<ArrayRef, Object> arrays, Object self,
                          Object[] args, Queue queue, List<Queued> queued) {
        KernelPlan plan = m.kernel(k);
        List<Reduction> reductions = plan.region().reductions();
        long[] results = new long[reductions.size()];
        for (int j = 0; j < results.length; j++) {
            results[j] = reductions.get(j).identityBits();
        }
        long trip;
        try {
            trip = Evaluator.tripCount(ev.evalLong(plan.region().loop().lower()), plan.region().loop().cond(),
                    ev.evalLong(plan.region().loop().bound()), plan.region().loop().step());
        } catch (Evaluator.NotEvaluable e) {
            trip = -1;
        }
        if (trip == 0) {
            return results;
        }
        // the variant without the checks the host proves for this call's values, else the one checking all; a tiled
        // variant has its own geometry
        boolean proven = m.hasUnchecked(k) && plan.provenInBounds(ev, arrays::get, rowLengths());
        org.acc4j.compiler.ir.Mapping geometry = plan.launchMapping(proven);
        int[] block = geometry.block();
        int[] grid = geometry.grid(ev, defaultGangs(geometry.threads()), Integer.MAX_VALUE);
        if (grid == null) {
            return results;
        }
        Function f = m.function(k, proven);
        Tuner.Launch shape = null;
        if (tuner != null) {
            // an async launch is not timed: it takes the chosen block once there is one
            long[] levelTrips = org.acc4j.compiler.plan.LaunchShapes.trips(geometry, ev);
            shape = queue == null ? tuner.pick(TunedShapes.key(plan, proven), () -> TunedShapes.of(m, plan, proven, f),
                    levelTrips) : tuner.chosen(TunedShapes.key(plan, proven), () -> TunedShapes.of(m, plan, proven, f),
                    levelTrips);
        }
        if (shape != null && !shape.own()) {
            block = shape.block();
            grid = org.acc4j.compiler.plan.LaunchShapes.grid(geometry, block, ev,
                    defaultGangs(block[0] * block[1] * block[2]), Integer.MAX_VALUE);
            if (grid == null) {
                return results;
            }
        }
        RowGroup.Choice lanes = rowLanes(m, plan, ev, arrays, trip, grid);
        long blocks = (long) grid[0] * grid[1] * grid[2];
        if (!reductions.isEmpty()) {
            scratch.reserve(ReductionScratch.partials(reductions.size(), blocks));
        }
        if (plan.region().scan() != null) {
            scratch.reserve(ReductionScratch.scanBytes(blocks));
            scratch.clearScanFlags(blocks, queue == null ? null : queue.stream());
        }
        Queue.ErrorSlot slot = null;
        if (queue != null) {
            slot = queue.errorSlot();
            queued.add(new Queued(plan, false, slot));
        }
        String entry = proven ? plan.unchecked().entry() : plan.entry();
        LaunchMemory.Plan lp = memory.plan(f, plan.params().size(), m.displayName());
        Parameters pa = lp.parameters();
        List<KernelParam> params = plan.params();
        for (int i = 0; i < params.size(); i++) {
            KernelParam p = params.get(i);
            if (p instanceof KernelParam.ErrorRecord) {
                pa.pointer(i, slot != null ? slot.device().address() : memory.errorRecordAddress());
            } else if (p instanceof KernelParam.ArrayData d) {
                // for a rank-2 array the present table's buffer is its row table, and its length the row count
                pa.pointer(i, table.lookup(arrays.get(d.array())).address());
            } else if (p instanceof KernelParam.RowBlock b) {
                // how the table lists the rows now: one block (indexed as a flat array) or not
                PresentTable.Entry e = table.entry(arrays.get(b.array()));
                if (b.part() == KernelParam.RowBlock.Part.START) {
                    pa.pointer(i, e.blockAddress());
                } else {
                    pa.putInt(i, e.blockRowLength());
                }
            } else if (p instanceof KernelParam.ArrayLength l) {
                pa.putInt(i, java.lang.reflect.Array.getLength(arrays.get(l.array())));
            } else if (p instanceof KernelParam.Scalar sc) {
                pa.scalar(i, sc.type(), Sources.scalar(m.sources().value(sc.source(), self, args)));
            } else if (p instanceof KernelParam.HostValue h) {
                pa.scalar(i, h.var().type(), ev.get(h.var()));
            } else if (p instanceof KernelParam.RowLanes) {
                pa.putInt(i, lanes.log2());
            } else if (p instanceof KernelParam.ReductionSlot r) {
                long offset = switch (r.part()) {
                    case COUNTER -> ReductionScratch.counter(r.index());
                    case RESULT -> ReductionScratch.result(r.index());
                    case PARTIALS -> ReductionScratch.partials(r.index(), blocks);
                };
                pa.putLong(i, scratch.address() + offset);
            } else if (p instanceof KernelParam.ScanSlot part) {
                pa.putLong(i, scratch.address() + ReductionScratch.scan(part.part(), blocks));
            }
        }
        if (queue != null) {
            queued.set(queued.size() - 1, new Queued(plan, proven, slot));
            pa.launch(f, grid, block, queue.stream(), entry);
            slot.device().copyToPinnedAsync(slot.host(), queue.stream());
            reportFirstLaunch(m, plan, grid, block);
            return results;
        }
        memory.beforeLaunch();
        if (started != null) {
            started.record();
        }
        if (tuner != null) {
            tuner.start(shape);
        }
        pa.launch(f, grid, block, null, entry);
        if (tuner != null) {
            tuner.stop(shape);
        }
        if (finished != null) {
            finished.record();
        }
        // the launch is synchronised anyway (the error record is read next): the events have completed after it
        context.synchronize(lp.waitingFor());
        if (finished != null) {
            profile.kernel(plan.entry(), Math.round(finished.millisSince(started) * 1e6), grid, block);
        }
        reportFirstLaunch(m, plan, grid, block);
        long[] record = memory.afterLaunch();
        int code = (int) record[0];
        if (code != 0) {
            RuntimeException thrown = KernelErrors.javaException(plan, proven, code, record[1], arrays);
            lastKernelException = thrown;
            throw thrown;
        }
        if (tuner != null) {
            tuner.finished(shape);
        }
        if (!reductions.isEmpty()) {
            scratch.copyToHost(results, reductions.size());
        }
        return results;
    }

    private void reportFirstLaunch(OffloadedMethod m, KernelPlan plan, int[] grid, int[] block) {
        if (report != null && !plan.mapping().gridFixed() && launched.add(plan.entry())) {
            report.accept(m.plan().body().sourceFile() + ":" + plan.region().loop().line() + ": kernel " + plan.entry()
                    + ": first launch with grid(" + grid[0] + ", "
                    + grid[1] + ", " + grid[2] + ") x block(" + block[0] + ", " + block[1] + ", " + block[2] + ")");
        }
    }

    /**
     * The lanes per row of a row-group kernel's launch (null for other kernels), with the grid's blocks scaled up
     * for the lanes when the trip count sized them, up to a full device.
     */
    private RowGroup.Choice rowLanes(OffloadedMethod m, KernelPlan plan, Evaluator ev, Map<ArrayRef, Object> arrays,
                                     long trip, int[] grid) {
        RowGroup group = null;
        for (KernelParam p : plan.params()) {
            if (p instanceof KernelParam.RowLanes g) {
                group = g.group();
            }
        }
        if (group == null) {
            return null;
        }
        long first;
        try {
            first = ev.evalLong(plan.region().loop().lower());
        } catch (Evaluator.NotEvaluable e) {
            first = -1;
        }
        String where = m.plan().body().sourceFile() + ":" + group.inner().line();
        RowGroup.Choice c = trip < 0 || first < 0 ? new RowGroup.Choice(1, "the rows are not known before the launch")
                : rowLanes.choose(where, plan.entry(), group, (int[]) arrays.get(group.offsets()), first, trip);
        if (c.lanes() > 1 && trip > 0 && plan.mapping().grid().get(0) instanceof org.acc4j.compiler.ir.Mapping.FromTrip) {
            int block = plan.mapping().block()[0];
            long wanted = (trip * c.lanes() + block - 1) / block;
            grid[0] = (int) Math.max(grid[0], Math.min(wanted, defaultGangs(plan.mapping().threads())));
        }
        return c;
    }

    /** Blocks to keep every SM full: the SM count times the blocks of this size one SM holds. */
    int defaultGangs(int vector) {
        int perSm = Math.max(1, Math.min(32, device.maxThreadsPerMultiprocessor() / vector));
        return device.multiprocessors() * perSm;
    }

    /**
     * Forgets the error record, the reduction scratch and the profile's events without freeing them, for good: the
     * device is lost (its context cannot be rebuilt), and nothing is launched any more. {@link #close} then does
     * nothing.
     */
    public synchronized void abandon() {
        queues.abandon();
        memory.abandon();
        scratch.abandon();
        if (tuner != null) {
            tuner.abandon();
        }
        abandoned = true;
    }

    @Override
    public synchronized void close() {
        if (abandoned) {
            return;
        }
        try {
            // queued results reach the host first; then the streams and pinned buffers are freed
            queues.close();
        } finally {
            closeRest();
        }
    }

    private void closeRest() {
        try {
            scratch.close();
        } finally {
            memory.close();
            if (started != null) {
                started.close();
                finished.close();
            }
            if (tuner != null) {
                tuner.close();
            }
        }
    }
}
