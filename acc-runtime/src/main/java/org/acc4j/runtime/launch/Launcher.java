package org.acc4j.runtime.launch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.List;
import org.acc4j.compiler.plan.ArrayUse;
import org.acc4j.compiler.plan.AsyncClause;
import org.acc4j.compiler.plan.DataUse;
import org.acc4j.compiler.plan.Gathering;
import org.acc4j.compiler.plan.HostCall;
import org.acc4j.compiler.plan.LaneChoice;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.ValueSource;
import org.acc4j.compiler.plan.Slot;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.Event;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.Pending;
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
 *
 * <p><b>Deferred launches</b>: a synchronous launch that {@link Deferral} allows (its variant cannot raise a Java
 * exception, has no reduction or scan, the call's data was all present before it, the tuner does not time it, the
 * profile is off) is not waited for: the call returns once its kernels are queued on the default stream, and {@link
 * #pending()} holds them. Whatever needs the device's data next waits for them first: every operation through the
 * {@link Guard} but a call, every copy into or out of present data and every free of device memory ({@link
 * org.acc4j.runtime.data.CudaMemory#settleWith}), an async call, and a launch that is waited for (its own
 * synchronisation covers them). Later deferred launches queue behind them in stream order with no wait.
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
    /** Binds a call's arrays and evaluates its launch checks. */
    private final Binder binder;
    /** The time profile and its two events around each launch; all null when profiling is off. */
    private final Profiler profile;
    private final Event started;
    private final Event finished;
    /** Takes the report's line on a kernel's first launch whose grid depends on run-time values; null when off. */
    private final Consumer<String> report;

    /** Lanes per row for row-group kernels. */
    private final RowLaneChooser rowLanes;
    private final ColourLaunch colourings;
    private final Set<String> launched = new HashSet<>();
    /** Set by {@link #abandon}: the device is lost, and nothing here may touch it again. */
    private boolean abandoned;
    /** The async queues. */
    private final Queues queues = new Queues();
    /** The references async calls in flight hold, released at their waits. */
    private final QueuedHolds holds = new QueuedHolds();
    /** Times block shapes on synchronous launches ({@link Tuner}); null when autotuning is off. */
    private Tuner tuner;
    /** The kernels launched and not waited for. */
    private final Pending pending;
    /** Whether synchronous launches may be deferred at all ({@code acc4j.defer}). */
    private boolean defer;
    /** The report's lines on deferral, each said once; null when the report is off. */
    private final Deferral.Report deferrals;
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
        this.pending = new Pending(context::synchronize, new Pending.EventMarks());
        this.deferrals = report == null ? null : new Deferral.Report(report);
        this.binder = new Binder(table);
        this.rowLanes = new RowLaneChooser(report);
        this.colourings = new ColourLaunch(table, report);
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

        /**
         * As {@link #adopt} with {@link Clause#COPY}, for a {@code T[][]} that the site's kernels only write, every
         * element of rows {@code [firstRow, endRow)} and columns {@code [firstColumn, endColumn)}: a scope that can
         * enters it with that window ({@link PresentTable#enterWritten}) and returns true; false when it did nothing
         * (the caller then adopts it plainly).
         */
        default boolean adoptWritten(Object array, String name, long firstRow, long endRow, long firstColumn,
                                     long endColumn) {
            return false;
        }
    }

    /**
     * As {@link #run(OffloadedMethod, Object, Object[])}, for a launch site inside {@code scope} (null for none): the
     * scope sees each array before its clause is entered, and each array the kernels wrote once they all succeeded.
     * With a scope, call under the {@link Guard}, which makes the context current.
     */
    public synchronized Object run(OffloadedMethod m, Object self, Object[] args, Scope scope) throws HostInstead {
        int queue = scope != null ? org.acc4j.Acc.ASYNC_SYNC : binder.queueOf(m, args);
        if (queue != org.acc4j.Acc.ASYNC_SYNC) {
            context.makeCurrent();
            // the queue's stream does not wait for the default stream's kernels by itself
            pending.settle("the async call " + m.displayName());
            queues.waitOn(m.async().waitOn(), queue);
            runAsync(m, self, args, queues.get(queue));
            return null;
        }
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.SITE);
        }
        if (scope == null) {
            // a launch site's call comes through the device lock, which made the context current already
            context.makeCurrent();
        }
        // a synchronous call sees everything queued before it
        queues.finishAll();
        table.drainCollected();
        // the rows of a two-dimensional array are compared with its table's once in this call, not at each question
        table.beginCall();
        try {
            return runNow(m, self, args, scope);
        } finally {
            table.endCall();
        }
    }

    /** {@link #run(OffloadedMethod, Object, Object[], Scope)} once the queues are drained: binds, enters, launches. */
    private Object runNow(OffloadedMethod m, Object self, Object[] args, Scope scope) throws HostInstead {
        HostCall call = Binder.checkBeforeLaunch(m, self, args);
        Object[] arrays = binder.bind(m, self, args, syncCall.busy ? null : m.boundArrays(), call);
        Gathering gathered = binder.takeGathered();
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.BIND);
        }
        // one call's state, reused by the next call (a launch is never re-entered on its thread, but if it were, that
        // call would get its own)
        SyncCall sc = syncCall.busy ? new SyncCall() : syncCall;
        sc.start(m, self, args, arrays, windowsOf(m));
        sc.gathered = gathered;
        try {
            return runSync(sc, m, arrays, call, scope);
        } finally {
            sc.end();
        }
    }

    /** The synchronous call {@code sc} from its data to its exit (see {@link #run(OffloadedMethod, Object, Object[], Scope)}). */
    private Object runSync(SyncCall sc, OffloadedMethod m, Object[] arrays, HostCall call, Scope scope)
            throws HostInstead {
        List<Object> entered = sc.entered;
        List<Clause> clauses = sc.clauses;
        WrittenWindows windows = sc.windows;
        Object value;
        try {
            if (scope != null) {
                List<DataUse> data = m.plan().data();
                for (int d = 0; d < data.size(); d++) {
                    Object array = arrays[data.get(d).array()];
                    if (data.get(d).source() instanceof ValueSource.Gathered) {
                        continue; // made for this launch: entered by its clause below, copied back and freed at its end
                    }
                    Clause clause = Binder.clause(m, d, array, call);
                    if (clause != Clause.COPY || !windows.adopt(scope, d, array, data.get(d).name(), call)) {
                        scope.adopt(array, data.get(d).name(), clause);
                    }
                }
            }
            sc.present = enterClauses(m, arrays, call, entered, clauses, windows);
            if (CallClock.ON) {
                CallClock.mark(CallClock.Part.DATA);
            }
            value = m.plan().run(call, sc);
        } catch (Throwable t) {
            // nothing goes back to the host; this call's buffers are freed (and failures to free kept with t)
            ClauseExits.all(table, entered, clauses, false, t);
            if (t instanceof OutOfDeviceMemoryException oom && !sc.launched) {
                throw Binder.hostInstead(oom);
            }
            if (t instanceof ColourLaunch.Refused r && !sc.launched) {
                throw new HostInstead(r.getMessage(), "colouring");
            }
            throw t;
        }
        ClauseExits.all(table, entered, clauses, true, null);
        if (sc.gathered != null) {
            sc.gathered.scatter(arrays); // the gathered fields came back with the clauses' exits: into the objects
        }
        if (scope != null) {
            for (ArrayUse a : m.plan().arrays()) {
                if (a.written() && !(a.source() instanceof ValueSource.Gathered)) {
                    scope.written(arrays[a.index()]);
                }
            }
        }
        return value;
    }

    /**
     * The state of one synchronous call, and its launches as the host program drives them: made once per launcher
     * and reused, so that a call allocates no lists, closure or flags of its own.
     */
    private final class SyncCall implements org.acc4j.compiler.plan.MethodLaunch.Launch {
        final List<Object> entered = new ArrayList<>();
        final List<Clause> clauses = new ArrayList<>();
        OffloadedMethod m;
        Object self;
        Object[] args;
        Object[] arrays;
        WrittenWindows windows;
        /** Whether a kernel of the call was launched (a later failure cannot send it to the host). */
        boolean launched;
        /** Whether every array of the call was present before it (its exit copies and frees nothing). */
        boolean present;
        /** The fields of arrays' objects gathered for the call, scattered after it; null for none. */
        Gathering gathered;
        boolean busy;

        void start(OffloadedMethod m, Object self, Object[] args, Object[] arrays, WrittenWindows windows) {
            this.m = m;
            this.self = self;
            this.args = args;
            this.arrays = arrays;
            this.windows = windows;
            launched = false;
            present = false;
            busy = true;
        }

        /** Lets go of the call's references (the present table holds its arrays weakly). */
        void end() {
            entered.clear();
            clauses.clear();
            m = null;
            self = null;
            args = null;
            if (arrays != null) {
                java.util.Arrays.fill(arrays, null);
            }
            arrays = null;
            windows = null;
            gathered = null;
            busy = false;
        }

        @Override
        public long[] region(int k, HostCall c) {
            windows.beforeLaunch(k, c, arrays);
            long[] results;
            if (m.plan().kernel(k).coloured()) {
                results = launchColours(m, k, c, arrays, self, args, null, null);
            } else {
                String callWhy = !present ? Deferral.NOT_PRESENT : null;
                results = launch(m, k, c, arrays, self, args, null, null, callWhy);
            }
            launched = true;
            windows.afterLaunch(k, arrays);
            return results;
        }
    }

    private final SyncCall syncCall = new SyncCall();

    /** The written windows of {@code m}'s calls, made at its first call. */
    private WrittenWindows windowsOf(OffloadedMethod m) {
        WrittenWindows w = m.windows();
        if (w == null) {
            w = new WrittenWindows(table, m.plan());
            m.windows(w);
        }
        return w;
    }

    /**
     * Enters the call's data clauses in order, adding each array and its clause to {@code entered} and {@code clauses}
     * as it is entered (so a failure exits exactly those), then marks the arrays its kernels may write. Returns
     * whether every array was present before (a data region, {@code Acc.copyin} or the call's scope holds it): then
     * the call's exits copy nothing back and free nothing.
     */
    private boolean enterClauses(OffloadedMethod m, Object[] arrays, HostCall call, List<Object> entered,
                                 List<Clause> clauses, WrittenWindows windows) {
        List<DataUse> data = m.plan().data();
        boolean present = true;
        for (int d = 0; d < data.size(); d++) {
            Object array = arrays[data.get(d).array()];
            Clause clause = Binder.clause(m, d, array, call);
            org.acc4j.runtime.data.Entry e = windows == null || clause != Clause.COPY || !windows.enter(d, array, call)
                    ? table.enter(array, clause) : table.entry(array);
            // this call's reference is one; another one holds it beyond the call (a window entered here is not)
            present &= e != null && e.structuredCount() + e.dynamicCount() > 1;
            entered.add(array);
            clauses.add(clause);
        }
        markWritten(m, arrays);
        return present;
    }

    /**
     * Tells the present table which arrays the call's kernels may write: a fault from here on loses what they write
     * into arrays that stay present after the call.
     */
    private void markWritten(OffloadedMethod m, Object[] arrays) {
        for (ArrayUse a : m.plan().arrays()) {
            if (a.written()) {
                table.markWritten(arrays[a.index()]);
                colourings.written(arrays[a.index()]);
            }
        }
    }

    /** A data routine was queued for {@code array}: its device copy may change (the colourings check it again). */
    public void dataQueued(Object array) {
        colourings.queued(array);
    }

    /** Launches coloured kernel {@code k} colour by colour ({@link ColourLaunch#byColour}). */
    private long[] launchColours(OffloadedMethod m, int k, HostCall call, Object[] arrays, Object self, Object[] args,
                                 Queue queue, List<Queued> queued) {
        return colourings.byColour(m.plan().sourceFile(), m.plan().kernel(k), call, arrays,
                () -> launch(m, k, call, arrays, self, args, queue, queued, Deferral.COLOURED));
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
    private record Queued(LaunchPlan plan, boolean proven, Queue.ErrorSlot slot) {
    }

    /**
     * An async call: enters its data clauses now, queues its kernels on {@code q} and leaves the rest to the wait
     * (see the class comment). Throws {@link HostInstead} before anything is queued.
     */
    private void runAsync(OffloadedMethod m, Object self, Object[] args, Queue q) throws HostInstead {
        context.makeCurrent();
        table.drainCollected();
        Object[] arrays = binder.bind(m, self, args, null);
        HostCall call = Binder.checkBeforeLaunch(m, self, args);
        List<Object> entered = new ArrayList<>();
        List<Clause> clauses = new ArrayList<>();
        List<Queued> queued = new ArrayList<>();
        boolean held = false;
        try {
            enterClauses(m, arrays, call, entered, clauses, null);
            for (int i = 0; i < entered.size(); i++) {
                holds.entered(entered.get(i), clauses.get(i));
            }
            held = true;
            m.plan().run(call, (k, c) -> m.plan().kernel(k).coloured()
                    ? launchColours(m, k, c, arrays, self, args, q, queued)
                    : launch(m, k, c, arrays, self, args, q, queued, Deferral.ASYNC));
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
                ClauseExits.queued(holds, table, entered, clauses, false, t);
            } else {
                ClauseExits.all(table, entered, clauses, false, t);
            }
            if (t instanceof OutOfDeviceMemoryException oom && queued.isEmpty()) {
                throw Binder.hostInstead(oom);
            }
            if (t instanceof ColourLaunch.Refused r && queued.isEmpty()) {
                throw new HostInstead(r.getMessage(), "colouring");
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
                ClauseExits.queued(holds, table, entered, clauses, error == null && !failed, error);
            } catch (RuntimeException e) {
                return e;
            }
            return error;
        });
    }

    /**
     * Forgets the error record and the reduction scratch without freeing them, after their context was destroyed
     * (a sticky fault), and allocates a new error record in the fresh context, current on this thread.
     */
    public synchronized void deviceLost() {
        // the kernels went with the old context
        pending.forget();
        queues.abandon();
        holds.clear();
        memory.renew();
        scratch.abandon();
    }

    private static final long[] NO_RESULTS = new long[0];
    /** Stands for the shapes of a variant the tuner knows already: never asked. */
    private static final java.util.function.Supplier<Tuner.Shapes> KNOWN = () -> {
        throw new IllegalStateException("the tuner asked again for the shapes of a kernel it knows");
    };

    /**
     * Launches region {@code k} with the host's values at its loop; returns its reductions' result bits. With a
     * {@code queue} (an async call, which has no reductions) the kernel goes on its stream with an error record of its
     * own, added to {@code queued}, and nothing is waited for. A synchronous launch is waited for unless {@link
     * Deferral} allows otherwise; {@code callWhy} is why the call itself keeps it waited for, null when it does not.
     */
    private long[] launch(OffloadedMethod m, int k, HostCall call, Object[] arrays, Object self, Object[] args,
                          Queue queue, List<Queued> queued, String callWhy) {
        LaunchPlan plan = m.kernel(k);
        int reductions = plan.reductions();
        long[] results = reductions == 0 ? NO_RESULTS : new long[reductions];
        for (int j = 0; j < reductions; j++) {
            results[j] = plan.identityBits(j);
        }
        long trip = plan.trip(call);
        if (trip == 0) {
            if (CallClock.ON) {
                CallClock.mark(CallClock.Part.PACK);
            }
            return results;
        }
        // the variant without the checks the host proves for this call's values, else the one checking all; a tiled
        // variant has its own geometry
        boolean proven = m.hasUnchecked(k) && plan.proven(call, arrays, binder.rowLengths());
        int[] block = plan.block(proven);
        int[] grid = plan.grid(call, proven, defaultGangs(plan.threads(proven)));
        if (grid == null) {
            return results;
        }
        Function f = m.function(k, proven);
        Tuner.Launch shape = null;
        if (tuner != null) {
            // an async launch is not timed: it takes the chosen block once there is one
            long[] levelTrips = plan.levelTrips(call, proven);
            Object key = TunedShapes.key(plan, proven);
            // the shapes are made at the variant's first launch only: later launches make no closure for them
            java.util.function.Supplier<Tuner.Shapes> shapes = tuner.knows(key) ? KNOWN
                    : () -> TunedShapes.of(m, plan, proven, f);
            shape = queue == null ? tuner.pick(key, shapes, levelTrips) : tuner.chosen(key, shapes, levelTrips);
        }
        if (shape != null && !shape.own()) {
            block = shape.block();
            grid = plan.grid(call, proven, block, defaultGangs(block[0] * block[1] * block[2]));
            if (grid == null) {
                return results;
            }
        }
        LaneChoice lanes = rowLanes(m, plan, call, arrays, trip, grid);
        long blocks = (long) grid[0] * grid[1] * grid[2];
        if (reductions > 0) {
            scratch.reserve(ReductionScratch.partials(reductions, blocks));
        }
        if (plan.scan()) {
            scratch.reserve(ReductionScratch.scanBytes(blocks));
            scratch.clearScanFlags(blocks, queue == null ? null : queue.stream());
        }
        Queue.ErrorSlot slot = null;
        if (queue != null) {
            slot = queue.errorSlot();
            queued.add(new Queued(plan, false, slot));
        }
        String entry = plan.entry(proven);
        List<Slot> params = plan.slots();
        LaunchMemory.Plan lp = memory.plan(f, params.size(), m.displayName(), m.plan().sourceFile(), plan.line());
        Parameters pa = lp.parameters();
        for (int i = 0; i < params.size(); i++) {
            Slot p = params.get(i);
            if (p instanceof Slot.ErrorRecord) {
                pa.pointer(i, slot != null ? slot.device().address() : memory.errorRecordAddress());
            } else if (p instanceof Slot.ArrayData d) {
                // for a rank-2 array the present table's buffer is its row table, and its length the row count
                org.acc4j.runtime.data.Buffer b = table.lookup(arrays[d.array()]);
                // an array of objects whose length alone the kernel reads has no elements on the device
                pa.pointer(i, b == null && Binder.lengthOnly(m, d.array()) ? 0 : b.address());
            } else if (p instanceof Slot.RowBlock b) {
                // how the table lists the rows now: one block (indexed as a flat array) or not
                var e = table.entry(arrays[b.array()]);
                if (b.start()) {
                    pa.pointer(i, e.blockAddress());
                } else {
                    pa.putInt(i, e.blockRowLength());
                }
            } else if (p instanceof Slot.ArrayLength l) {
                pa.putInt(i, java.lang.reflect.Array.getLength(arrays[l.array()]));
            } else if (p instanceof Slot.Scalar sc) {
                pa.scalar(i, sc.type(), Sources.scalar(m.sources().value(sc.source(), self, args)));
            } else if (p instanceof Slot.HostValue h) {
                pa.scalar(i, h.type(), plan.hostValue(call, h));
            } else if (p instanceof Slot.RowLanes) {
                pa.putInt(i, lanes.log2());
            } else if (p instanceof Slot.Reduction r) {
                long offset = switch (r.part()) {
                    case COUNTER -> ReductionScratch.counter(r.index());
                    case RESULT -> ReductionScratch.result(r.index());
                    case PARTIALS -> ReductionScratch.partials(r.index(), blocks);
                };
                pa.putLong(i, scratch.address() + offset);
            } else if (p instanceof Slot.Scan part) {
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
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.PACK);
        }
        boolean timed = shape != null && shape.timed();
        String why = Deferral.why(defer, profile != null, plan, proven, callWhy, timed);
        if (report != null) {
            deferrals.say(m.plan().sourceFile(), plan, why);
        }
        if (why == null) {
            // nothing to read after it: the host goes on, and whatever needs the device's data next waits
            pa.launch(f, grid, block, null, entry);
            pending.add(lp.waitingFor());
            if (CallClock.ON) {
                CallClock.mark(CallClock.Part.LAUNCH);
            }
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
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.LAUNCH);
        }
        if (tuner != null) {
            tuner.stop(shape);
        }
        if (finished != null) {
            finished.record();
        }
        // the launch is synchronised anyway (the error record is read next): the events have completed after it, and
        // so have the deferred kernels queued before it
        if (pending.any()) {
            context.synchronize(lp.waitingFor() + ", after " + pending.describe());
            pending.settled();
        } else {
            context.synchronize(lp.waitingFor());
        }
        if (finished != null) {
            profile.kernel(plan.entry(false), Math.round(finished.millisSince(started) * 1e6), grid, block);
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
        if (CallClock.ON) {
            CallClock.mark(CallClock.Part.SYNC);
        }
        if (reductions > 0) {
            scratch.copyToHost(results, reductions);
        }
        return results;
    }

    /** The kernels launched and not yet waited for; copies and frees of device memory wait for them. */
    public Pending pending() {
        return pending;
    }

    /** Waits for the deferred kernels before {@code what} uses the device (a no-op when there are none). */
    public void settle(String what) {
        pending.settle(what);
    }

    /** Whether synchronous launches may be deferred ({@code acc4j.defer}; off until set). */
    public synchronized void defer(boolean on) {
        this.defer = on;
    }

    private void reportFirstLaunch(OffloadedMethod m, LaunchPlan plan, int[] grid, int[] block) {
        if (report != null && !plan.gridFixed() && launched.add(plan.entry(false))) {
            report.accept(m.plan().sourceFile() + ":" + plan.line() + ": kernel " + plan.entry(false)
                    + ": first launch with grid(" + grid[0] + ", "
                    + grid[1] + ", " + grid[2] + ") x block(" + block[0] + ", " + block[1] + ", " + block[2] + ")");
        }
    }

    /**
     * The lanes per row of a row-group kernel's launch (null for other kernels), with the grid's blocks scaled up
     * for the lanes when the trip count sized them, up to a full device.
     */
    private LaneChoice rowLanes(OffloadedMethod m, LaunchPlan plan, HostCall call, Object[] arrays, long trip,
                                int[] grid) {
        if (!plan.rowGroup()) {
            return null;
        }
        long first = plan.firstRow(call);
        String where = m.plan().sourceFile() + ":" + plan.rowGroupLine();
        int[] offsets = plan.rowOffsets() < 0 ? null : (int[]) arrays[plan.rowOffsets()];
        LaneChoice c = trip < 0 || first < 0 ? LaunchPlan.oneLane("the rows are not known before the launch")
                : rowLanes.choose(where, plan.entry(false), plan, offsets, first, trip);
        if (c.lanes() > 1 && trip > 0 && plan.gridFromTrip()) {
            int block = plan.block(false)[0];
            long wanted = (trip * c.lanes() + block - 1) / block;
            grid[0] = (int) Math.max(grid[0], Math.min(wanted, defaultGangs(plan.threads(false))));
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
        pending.forget();
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
            // deferred kernels end, and queued results reach the host, first; then the streams and pinned buffers are
            // freed
            pending.settle("shutting down");
            pending.close();
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
