package org.acc4j.compiler.plan;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * How the runtime launches one kernel of a compiled method: its PTX and entry (and those of its variant without the
 * bounds checks the host proves), its parameter slots, its reductions, its geometry as a function of the call's host
 * values, the proofs that select the variant, the lanes of a row-group kernel and its error sites. Everything that
 * depends on the plan alone is computed when the plan is made; what depends on the call is computed from its
 * {@link HostCall}. Immutable; thread-safe.
 */
public final class LaunchPlan {
    private final KernelPlan kernel;
    private final int index;
    private final List<Slot> slots;
    private final long[] identities;
    private final Var[] hostVars;
    private final Mapping checkedGeometry;
    private final Mapping uncheckedGeometry;
    private final List<Fault> checkedFaults;
    private final List<Fault> uncheckedFaults;
    private final RowGroup group;
    private final int rowOffsets;
    private final Stmt.For loop;
    private final org.acc4j.compiler.ir.ColourPlan colour;
    /** A coloured loop's order, maps and incremented arrays by their position in the call's arrays. */
    private final int colourOrder;
    private final int[] colourMaps;
    private final int[] colourTargets;

    LaunchPlan(KernelPlan kernel, int index, List<ArrayUse> arrays, java.util.function.ToIntFunction<
            org.acc4j.compiler.ir.ArrayRef> arrayIndex) {
        this.kernel = kernel;
        this.index = index;
        this.loop = kernel.region().loop();
        List<Reduction> reductions = kernel.region().reductions();
        this.identities = new long[reductions.size()];
        for (int j = 0; j < identities.length; j++) {
            identities[j] = reductions.get(j).identityBits();
        }
        List<Slot> s = new ArrayList<>();
        List<Var> vars = new ArrayList<>();
        RowGroup g = null;
        for (KernelParam p : kernel.params()) {
            if (p instanceof KernelParam.ErrorRecord) {
                s.add(new Slot.ErrorRecord());
            } else if (p instanceof KernelParam.ArrayData d) {
                s.add(new Slot.ArrayData(arrayIndex.applyAsInt(d.array())));
            } else if (p instanceof KernelParam.ArrayLength l) {
                s.add(new Slot.ArrayLength(arrayIndex.applyAsInt(l.array())));
            } else if (p instanceof KernelParam.RowBlock b) {
                s.add(new Slot.RowBlock(arrayIndex.applyAsInt(b.array()), b.part() == KernelParam.RowBlock.Part.START));
            } else if (p instanceof KernelParam.Scalar sc) {
                s.add(new Slot.Scalar(Sources.of(sc.source()), ScalarType.of(sc.type())));
            } else if (p instanceof KernelParam.HostValue h) {
                vars.add(h.var());
                s.add(new Slot.HostValue(vars.size() - 1, ScalarType.of(h.var().type())));
            } else if (p instanceof KernelParam.RowLanes l) {
                g = l.group();
                s.add(new Slot.RowLanes());
            } else if (p instanceof KernelParam.ReductionSlot r) {
                s.add(new Slot.Reduction(r.index(), Slot.ReductionPart.valueOf(r.part().name())));
            } else if (p instanceof KernelParam.ScanSlot sc) {
                s.add(new Slot.Scan(Slot.ScanPart.valueOf(sc.part().name())));
            } else {
                throw new IllegalStateException("a kernel parameter the launch does not fill: " + p);
            }
        }
        this.slots = List.copyOf(s);
        this.hostVars = vars.toArray(new Var[0]);
        this.group = g;
        this.rowOffsets = g == null || g.offsets() == null ? -1 : arrayIndex.applyAsInt(g.offsets());
        this.checkedGeometry = kernel.launchMapping(false);
        this.uncheckedGeometry = kernel.launchMapping(true);
        this.colour = kernel.region().colour();
        if (colour != null) {
            this.colourOrder = arrayIndex.applyAsInt(colour.order());
            this.colourMaps = colour.maps().stream().mapToInt(arrayIndex::applyAsInt).toArray();
            this.colourTargets = colour.targets().stream().mapToInt(t -> arrayIndex.applyAsInt(t.array())).toArray();
        } else {
            this.colourOrder = -1;
            this.colourMaps = new int[0];
            this.colourTargets = new int[0];
        }
        this.checkedFaults = faults(kernel.sites(), arrays);
        this.uncheckedFaults = kernel.unchecked() == null ? List.of() : faults(kernel.unchecked().sites(), arrays);
    }

    private static List<Fault> faults(List<ErrorSite> sites, List<ArrayUse> arrays) {
        return sites.stream().map(site -> Fault.of(site, arrays)).toList();
    }

    /** Its position among the method's kernels, in program order. */
    public int index() {
        return index;
    }

    /** The region's number in the method, part of its cache keys. */
    public int ordinal() {
        return kernel.region().ordinal();
    }

    /** The source line of its outer loop. */
    public int line() {
        return loop.line();
    }

    /** Whether it has a variant without the checks the host proves. */
    public boolean hasUnchecked() {
        return kernel.unchecked() != null;
    }

    /** The entry of the variant launched when {@code proven} (see {@link #proven}), else of the checked kernel. */
    public String entry(boolean proven) {
        return proven ? kernel.unchecked().entry() : kernel.entry();
    }

    /** The PTX of that variant. */
    public String ptx(boolean proven) {
        return proven ? kernel.unchecked().ptx() : kernel.ptx();
    }

    /** The dynamic shared memory per block of that variant's launches, in bytes. */
    public int dynamicShared(boolean proven) {
        return proven ? kernel.unchecked().dynamicShared() : 0;
    }

    /** Its parameters in order. */
    public List<Slot> slots() {
        return slots;
    }

    /** How many reductions it has (their results come back as raw bits, in order). */
    public int reductions() {
        return identities.length;
    }

    /** The raw bits of reduction {@code j}'s identity: its result when the loop runs no iteration. */
    public long identityBits(int j) {
        return identities[j];
    }

    /** Whether it is a scan (whose tile state one launch at a time uses). */
    public boolean scan() {
        return kernel.region().scan() != null;
    }

    /**
     * The trip count of its outer loop for the host's values at the launch, or -1 when they depend on device data.
     *
     * @throws ArithmeticException where Java's evaluation of the bounds would throw
     */
    public long trip(HostCall call) {
        Evaluator ev = call.current();
        try {
            return Evaluator.tripCount(ev.evalLong(loop.lower()), loop.cond(), ev.evalLong(loop.bound()), loop.step());
        } catch (Evaluator.NotEvaluable e) {
            return -1;
        }
    }

    /**
     * Whether every proof of the variant without checks holds for this launch, over the call's {@code arrays} (by
     * {@link ArrayUse#index()}), taking rows' shortest lengths from {@code rows} where it knows them; false when there
     * is no such variant.
     */
    public boolean proven(HostCall call, Object[] arrays, RowLengths rows) {
        return kernel.unchecked() != null && kernel.provenInBounds(call.current(), call.arrays(arrays),
                call.rowLengths(rows));
    }

    /** The block of a launch of the variant {@code proven} picks. */
    public int[] block(boolean proven) {
        return geometry(proven).block();
    }

    /** The threads of one block of that variant. */
    public int threads(boolean proven) {
        return geometry(proven).threads();
    }

    /**
     * The grid of a launch of that variant for the host's values at the launch: fixed axes as compiled, the others
     * from trip counts, capped at {@code fullDevice} blocks (the blocks that fill every SM) where the plan says so;
     * null when the outer loop runs no iteration.
     */
    public int[] grid(HostCall call, boolean proven, int fullDevice) {
        return geometry(proven).grid(call.current(), fullDevice, Integer.MAX_VALUE);
    }

    /** The block shapes that variant may launch with in place of its own, or why it keeps its own. */
    public LaunchShapes.Choice shapes(boolean proven) {
        return LaunchShapes.of(kernel, proven);
    }

    /**
     * As {@link #grid(HostCall, boolean, int)}, for a launch of that variant with {@code block}, one of
     * {@link #shapes}, in place of its own.
     */
    public int[] grid(HostCall call, boolean proven, int[] block, int fullDevice) {
        return LaunchShapes.grid(geometry(proven), block, call.current(), fullDevice, Integer.MAX_VALUE);
    }

    /** Each parallel level's trip count for this launch of that variant, outermost first (-1 where unknown). */
    public long[] levelTrips(HostCall call, boolean proven) {
        return LaunchShapes.trips(geometry(proven), call.current());
    }

    private Mapping geometry(boolean proven) {
        return proven ? uncheckedGeometry : checkedGeometry;
    }

    /** Whether the checked kernel's grid is fixed at compile time (none of its axes comes from a trip count). */
    public boolean gridFixed() {
        return checkedGeometry.gridFixed();
    }

    /** Whether the checked kernel's grid x extent comes from the outer loop's trip count. */
    public boolean gridFromTrip() {
        return checkedGeometry.grid().get(0) instanceof Mapping.FromTrip;
    }

    /** The host's value for a {@link Slot.HostValue} at this launch, boxed as Java boxes it. */
    public Object hostValue(HostCall call, Slot.HostValue slot) {
        return call.current().get(hostVars[slot.index()]);
    }

    /** Whether it is a row-group kernel, whose lanes per row are chosen at each launch ({@link #lanes}). */
    public boolean rowGroup() {
        return group != null;
    }

    /** The row offsets' position in the call's arrays (an {@code int[]}), or -1 when the lanes are fixed. */
    public int rowOffsets() {
        return rowOffsets;
    }

    /** The source line of a row-group kernel's inner loop. */
    public int rowGroupLine() {
        return group.inner().line();
    }

    /** The first row of this launch (its outer loop's lower bound), or -1 when the host cannot evaluate it. */
    public long firstRow(HostCall call) {
        try {
            return call.current().evalLong(loop.lower());
        } catch (Evaluator.NotEvaluable e) {
            return -1;
        }
    }

    /**
     * The lanes per row for rows {@code [first, first + count)} given the host's row {@code offsets}, found
     * {@code monotonic} or not ({@link #monotonic}); see {@link RowGroup#choose}.
     */
    public LaneChoice lanes(int[] offsets, long first, long count, boolean monotonic) {
        RowGroup.Choice c = group.choose(offsets, first, count, monotonic);
        return new LaneChoice(c.lanes(), c.why());
    }

    /** The lanes of a launch whose rows are not known before it: one per row. */
    public static LaneChoice oneLane(String why) {
        return new LaneChoice(1, why);
    }

    /** Whether {@code offsets[first..first + count]} lie in the array, start at 0 or above and never decrease. */
    public static boolean monotonic(int[] offsets, long first, long count) {
        return RowGroup.monotonic(offsets, first, count);
    }

    /**
     * Whether the loop runs colour by colour ({@code @Loop(increments = COLOUR)}): the runtime colours its iterations
     * through {@link ColourRange#maps}, binds the order at {@link #colourOrder()} and launches once per colour after
     * {@link #colour}.
     */
    public boolean coloured() {
        return colour != null;
    }

    /** The colour order's position in the call's arrays (its {@link ValueSource.Made} array), or -1. */
    public int colourOrder() {
        return colourOrder;
    }

    /**
     * What a coloured loop's colouring is made from at this launch: the iterations {@code lo..hi-1}, the index arrays
     * (named for messages) and the bound on their values, {@code limit}, past which the kernel's bounds check fails.
     */
    public record ColourRange(int lo, int hi, int limit, int[][] maps, List<String> names, String why,
                              boolean inOrder) {
    }

    /**
     * The colour range of this launch over the call's {@code arrays}.
     *
     * @throws IllegalArgumentException when the host cannot evaluate the loop's bounds, or an index array is null
     */
    public ColourRange colourRange(HostCall call, Object[] arrays) {
        Evaluator ev = call.current();
        int lo;
        int hi;
        try {
            lo = Math.toIntExact(ev.evalLong(colour.lower()));
            hi = Math.toIntExact(ev.evalLong(colour.bound()) + (colour.inclusive() ? 1 : 0));
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            throw new IllegalArgumentException("the coloured loop's bounds cannot be evaluated on the host ("
                    + e.getMessage() + ")");
        }
        int[][] maps = new int[colourMaps.length][];
        List<String> names = new ArrayList<>();
        for (int j = 0; j < maps.length; j++) {
            maps[j] = (int[]) arrays[colourMaps[j]];
            names.add(colour.maps().get(j).name());
            if (maps[j] == null) {
                throw new IllegalArgumentException("the index array " + names.get(j) + " is null");
            }
        }
        int[] lengths = new int[colourTargets.length];
        for (int j = 0; j < lengths.length; j++) {
            Object a = arrays[colourTargets[j]];
            lengths[j] = a == null ? 0 : java.lang.reflect.Array.getLength(a);
        }
        return new ColourRange(lo, hi, colour.limit(lengths), maps, List.copyOf(names), colour.why(),
                colour.inOrder());
    }

    /** Sets the host values of one colour's launch: its range {@code [start, end)} of the colour order. */
    public void colour(HostCall call, int start, int end) {
        call.current().set(colour.start(), start);
        call.current().set(colour.end(), end);
    }

    /**
     * Whether the variant launched when {@code proven} can raise a Java exception on the device: it has an error site
     * (an array access whose bounds check stays in it, an integer division or remainder by a value that may be zero),
     * the only places its code writes the error record. False: every launch of it ends without one, so the host need
     * not read the record after it.
     */
    public boolean raises(boolean proven) {
        return !(proven ? uncheckedFaults : checkedFaults).isEmpty();
    }

    /** The error site the error record's {@code code} (from 1) names, in the variant that ran. */
    public Fault fault(boolean proven, int code) {
        return (proven ? uncheckedFaults : checkedFaults).get(code - 1);
    }
}
