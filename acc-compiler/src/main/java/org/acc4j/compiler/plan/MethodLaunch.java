package org.acc4j.compiler.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.HostProgram;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * What the runtime needs to run calls of a compiled method on the device: the arrays a call binds, its data clauses,
 * a {@link LaunchPlan} per kernel in program order, and the host program that drives a call (the scalar code between
 * the loops runs on the host, each loop is a launch). Made once per compiled method; immutable and thread-safe. A
 * call's values live in its {@link HostCall}.
 */
public final class MethodLaunch {
    private final CompiledMethod method;
    private final List<ArrayUse> arrays;
    private final Map<ArrayRef, Integer> arrayIndex;
    private final List<DataUse> data;
    /** Per data clause: the implicit copyout's coverage, or null. */
    private final DataClause.Coverage[] coverage;
    private final List<LaunchPlan> kernels;
    /**
     * Per region: whether a call evaluates it before anything is launched (it has launch checks, or an implicit
     * copyout's coverage needs its trip count); the others are evaluated only at their launch.
     */
    private final boolean[] before;
    private final Var[] argumentVars;
    private final int[] argumentIndex;
    private final Map<ArrayRef.Source, ValueSource> fields = new ConcurrentHashMap<>();
    /** The parameters the kernels use as objects ({@link Sources#holders}). */
    private final Map<Integer, String> holders;
    /** The overridable methods expanded into the kernels ({@link Overrides}). */
    private final Overrides overrides;
    /** The rows of each two-dimensional array the kernel may write, where they can be told. */
    private final org.acc4j.compiler.pass.WrittenRows writtenRows;

    private MethodLaunch(CompiledMethod method) {
        this.method = method;
        // the arrays the kernels use, in the order of their parameters, then those only the data clauses name
        Map<ArrayRef, Boolean> written = new LinkedHashMap<>();
        for (KernelPlan k : method.kernels()) {
            for (KernelParam p : k.params()) {
                if (p instanceof KernelParam.ArrayData d) {
                    written.merge(d.array(), d.written(), Boolean::logicalOr);
                }
            }
        }
        for (DataClause c : method.data()) {
            written.putIfAbsent(c.array(), false);
        }
        for (KernelPlan k : method.kernels()) {
            for (KernelParam p : k.params()) {
                if (p instanceof KernelParam.ArrayLength l) {
                    written.putIfAbsent(l.array(), false);
                } else if (p instanceof KernelParam.RowBlock b) {
                    written.putIfAbsent(b.array(), false);
                } else if (p instanceof KernelParam.RowLanes g && g.group().offsets() != null) {
                    written.putIfAbsent(g.group().offsets(), false);
                }
            }
        }
        List<ArrayUse> uses = new ArrayList<>();
        Map<ArrayRef, Integer> index = new HashMap<>();
        for (Map.Entry<ArrayRef, Boolean> e : written.entrySet()) {
            ArrayRef a = e.getKey();
            index.put(a, uses.size());
            uses.add(new ArrayUse(uses.size(), a.name(), Sources.of(a.source()), a.dims(), e.getValue()));
        }
        this.arrays = List.copyOf(uses);
        this.arrayIndex = Map.copyOf(index);
        List<DataUse> d = new ArrayList<>();
        this.coverage = new DataClause.Coverage[method.data().size()];
        for (DataClause c : method.data()) {
            coverage[d.size()] = c.coverage();
            d.add(DataUse.of(c, arrayIndex.get(c.array())));
        }
        this.data = List.copyOf(d);
        List<LaunchPlan> plans = new ArrayList<>();
        for (KernelPlan k : method.kernels()) {
            plans.add(new LaunchPlan(k, plans.size(), arrays, this::arrayIndex));
        }
        this.kernels = List.copyOf(plans);
        this.holders = Sources.holders(method);
        List<Region> regions = new ArrayList<>();
        for (KernelPlan k : method.kernels()) {
            regions.add(k.region());
        }
        this.writtenRows = new org.acc4j.compiler.pass.WrittenRows(method.body(), regions);
        this.overrides = new Overrides(method.guards().virtuals());
        this.before = new boolean[plans.size()];
        for (int k = 0; k < before.length; k++) {
            Region r = method.kernels().get(k).region();
            before[k] = !r.checks().isEmpty() || r.mapping() != null && !r.mapping().checkedLoops().isEmpty();
        }
        for (DataClause.Coverage c : coverage) {
            if (c != null) {
                before[c.region()] = true;
            }
        }
        List<Var> vars = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (MethodBody.Param p : method.body().params()) {
            Type t = Type.ofDescriptor(p.descriptor());
            if (t != null) {
                vars.add(new Var(p.slot(), t, p.name()));
                at.add(p.index());
            }
        }
        this.argumentVars = vars.toArray(new Var[0]);
        this.argumentIndex = at.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The launch plan of {@code method}. */
    public static MethodLaunch of(CompiledMethod method) {
        return new MethodLaunch(method);
    }

    /**
     * The explicit data clauses of the {@code @Data} method {@code name} with {@code descriptor} in {@code classFile},
     * in order.
     */
    public static List<DataUse> dataRegion(byte[] classFile, String name, String descriptor) {
        return Compiler.dataRegion(classFile, name, descriptor).stream().map(c -> DataUse.of(c, -1)).toList();
    }

    /** {@code Owner.name}. */
    public String displayName() {
        return method.body().displayName();
    }

    /** The method's source file, or null when the class does not say. */
    public String sourceFile() {
        return method.body().sourceFile();
    }

    /** Whether the method returns a value (a call then needs its result on the host when it returns). */
    public boolean returnsValue() {
        return !method.body().descriptor().endsWith(")V");
    }

    /** The arrays a call binds: those its kernels use, in the order of their parameters, then the data clauses' others. */
    public List<ArrayUse> arrays() {
        return arrays;
    }

    /** The method's data clauses, in the order they are entered. */
    public List<DataUse> data() {
        return data;
    }

    /** Its kernels in program order. */
    public List<LaunchPlan> kernels() {
        return kernels;
    }

    public LaunchPlan kernel(int k) {
        return kernels.get(k);
    }

    /**
     * The least and greatest row of bound two-dimensional array {@code index} that the call's kernel may write, for
     * the host's values at its start ({@link org.acc4j.compiler.pass.WrittenRows}), or null when they cannot be told;
     * an empty range ({@code {1, 0}}) when its loops run no iteration.
     * Each row outside it is only read, so it may also be bound under another name.
     */
    public long[] writtenRows(int index, HostCall call) {
        for (Map.Entry<ArrayRef, Integer> e : arrayIndex.entrySet()) {
            if (e.getValue() == index) {
                return writtenRows.of(e.getKey(), call.evaluator());
            }
        }
        return null;
    }

    int arrayIndex(ArrayRef a) {
        Integer i = arrayIndex.get(a);
        return i == null ? -1 : i;
    }

    ValueSource field(ArrayRef.Source s) {
        return fields.computeIfAbsent(s, Sources::of);
    }

    void bindArguments(Evaluator ev, Object[] args) {
        for (int i = 0; i < argumentVars.length; i++) {
            ev.set(argumentVars[i], ScalarType.widen(args[argumentIndex[i]]));
        }
    }

    /**
     * Starts a call with arguments {@code args} (and {@code self}, null for a static method), whose fields
     * {@code reader} reads: evaluates each region's loop bounds and runs the checks the compiler left to the launch (a
     * {@code !=} loop must reach its bound, a strided one must not wrap around, writes shown disjoint only for some
     * values must be disjoint for these). When a check fails or cannot be evaluated, {@link HostCall#refusal()} says
     * why and the call must run on the host.
     */
    public HostCall begin(ValueReader reader, Object self, Object[] args) {
        HostCall call = new HostCall(this, reader, self, args);
        call.refusal = holders.isEmpty() ? null : Sources.nullHolder(holders, args);
        if (call.refusal == null) {
            call.refusal = overrides.refusal(self, args, holders);
        }
        for (int k = 0; k < kernels.size() && call.refusal == null; k++) {
            if (!before[k]) {
                call.trips[k] = -1;
                continue;
            }
            Region r = method.kernels().get(k).region();
            Evaluator ev = call.evaluator();
            call.before[k] = ev;
            try {
                call.trips[k] = tripCount(r, ev, call, k);
                call.refusal = refusal(r, ev);
            } catch (NullPointerException e) {
                // a null array, or a null object on the way to one, where the loop's bounds read it: plain Java throws
                call.refusal = "the loop at line " + r.loop().line() + " meets a null reference: " + e.getMessage();
            }
            if (call.refusal != null) {
                break;
            }
        }
        return call;
    }

    /** The loop's trip count evaluated on the host, or -1 when it depends on device data. */
    private static long tripCount(Region r, Evaluator ev, HostCall call, int k) {
        try {
            ev.run(r.devicePrologue());
            long lo = ev.evalLong(r.loop().lower());
            long ub = ev.evalLong(r.loop().bound());
            call.lowers[k] = lo;
            return Evaluator.tripCount(lo, r.loop().cond(), ub, r.loop().step());
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return -1;
        }
    }

    /** Why region {@code r} may not run in parallel for the call's values, or null. */
    private static String refusal(Region r, Evaluator ev) {
        if (r.mapping() != null && !r.mapping().checkedLoops().isEmpty()) {
            String why;
            try {
                why = r.mapping().checkLoops(ev);
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                why = "the bounds of its != loops or steps cannot be evaluated before the launch (" + e.getMessage() + ")";
            }
            if (why != null) {
                return "loop nest at line " + r.loop().line() + " is not run in parallel for these arguments: " + why;
            }
        }
        for (Disjointness d : r.checks()) {
            String why;
            try {
                why = d.check(ev);
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                why = "the writes to " + d.array().name() + " at line " + d.line()
                        + " cannot be shown disjoint before the launch (" + e.getMessage() + ")";
            }
            if (why != null) {
                return "loop nest at line " + r.loop().line() + " is not parallel for these arguments: " + why;
            }
        }
        return null;
    }

    /**
     * The clause data clause {@code d} enters {@code array} with for this call: its own, except that an implicit
     * copyout becomes copy unless the loop provably writes every element (so unwritten elements keep their values).
     */
    public DataUse.Kind clause(int d, Object array, HostCall call) {
        DataUse c = data.get(d);
        if (c.kind() != DataUse.Kind.COPYOUT) {
            return c.kind();
        }
        if (!c.explicit() && c.dims() == 2) {
            // no coverage analysis for rows yet: unwritten elements must keep their values
            return DataUse.Kind.COPY;
        }
        DataClause.Coverage cov = coverage[d];
        if (c.explicit() || cov == null) {
            return c.explicit() ? DataUse.Kind.COPYOUT : DataUse.Kind.COPY;
        }
        int k = cov.region();
        if (call.trips[k] < 0) {
            return DataUse.Kind.COPY;
        }
        try {
            long offset = call.before[k].evalLong(cov.offset());
            long first = call.lowers[k] + offset;
            long last = first + call.trips[k] - 1;
            int length = java.lang.reflect.Array.getLength(array);
            return first <= 0 && last >= length - 1 ? DataUse.Kind.COPYOUT : DataUse.Kind.COPY;
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return DataUse.Kind.COPY;
        }
    }

    /**
     * The rows {@code [firstRow, endRow)} and columns {@code [firstColumn, endColumn)} of a {@code T[][]} that a call
     * writes, every element of them, and no other (see {@link #window}).
     */
    public record Window(long firstRow, long endRow, long firstColumn, long endColumn) {
        /** Whether nothing is written. */
        public boolean empty() {
            return endRow <= firstRow || endColumn <= firstColumn;
        }
    }

    /**
     * For a {@code T[][]} that the call's kernels only write, once per element of a rectangle (an implicit copyout
     * with a two-dimensional coverage): that rectangle for this call's values before anything is launched, so that
     * the runtime copies in nothing and copies back only it; null for any other clause, or when the host cannot
     * evaluate the bounds or a subscript would not lie in {@code [0, 2^31)}. The rectangle may reach past the array:
     * the kernel's bounds checks then fail, as Java's would, and nothing is copied back.
     */
    public Window window(int d, HostCall call) {
        DataClause.Coverage cov = coverage[d];
        DataUse c = data.get(d);
        if (c.explicit() || c.kind() != DataUse.Kind.COPYOUT || cov == null || cov.columns() == null) {
            return null;
        }
        int k = cov.region();
        if (call.trips[k] < 0) {
            return null;
        }
        return window(cov, call.before[k], call.lowers[k], call.trips[k]);
    }

    /**
     * {@link #window} evaluated with the host's values at the launch of its region now under way, to check that the
     * host code before the loop did not change what the bounds evaluate to; null when they cannot be evaluated.
     */
    public Window windowAtLaunch(int d, HostCall call) {
        DataClause.Coverage cov = coverage[d];
        if (cov == null || cov.columns() == null) {
            return null;
        }
        LaunchPlan plan = kernels.get(cov.region());
        long trip;
        long lower;
        try {
            trip = plan.trip(call);
            lower = call.current().evalLong(method.kernels().get(cov.region()).region().loop().lower());
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return null;
        }
        return trip < 0 ? null : window(cov, call.current(), lower, trip);
    }

    /** The region whose loop writes data clause {@code d}'s window, or -1 when it has none. */
    public int windowRegion(int d) {
        DataClause.Coverage cov = coverage[d];
        return cov == null || cov.columns() == null ? -1 : cov.region();
    }

    private static Window window(DataClause.Coverage cov, Evaluator ev, long lower, long trip) {
        try {
            long firstRow = lower + ev.evalLong(cov.offset());
            DataClause.Columns cols = cov.columns();
            long lo = ev.evalLong(cols.lower());
            long columns = Evaluator.tripCount(lo, cols.cond(), ev.evalLong(cols.bound()), 1);
            long firstColumn = lo + ev.evalLong(cols.offset());
            if (trip <= 0 || columns <= 0) {
                return new Window(0, 0, 0, 0);
            }
            if (firstRow < 0 || firstColumn < 0 || firstRow + trip > Integer.MAX_VALUE
                    || firstColumn + columns > Integer.MAX_VALUE) {
                // outside the array, or a subscript Java's int arithmetic would wrap: the plain clause keeps Java's
                return null;
            }
            return new Window(firstRow, firstRow + trip, firstColumn, firstColumn + columns);
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return null;
        }
    }

    /** Launches one region of a call. */
    @FunctionalInterface
    public interface Launch {
        /**
         * Launches kernel {@code k} with the host's values at its loop in {@code call}, and returns the raw bits of its
         * reductions' results, one per {@link LaunchPlan#reductions()}, in order.
         */
        long[] region(int k, HostCall call);
    }

    /**
     * Drives the call: runs the scalar code on the host and each loop through {@code launch}. Returns the method's
     * value (boxed), null for a void method, or for a launch site the final values of its live-out locals, as an
     * {@code Object[]}.
     */
    public Object run(HostCall call, Launch launch) {
        Evaluator ev = call.evaluator();
        call.current(ev);
        try {
            return HostProgram.run(method, ev, (k, e) -> launch.region(k, call));
        } finally {
            call.current(null);
        }
    }
}
