package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.frontend.Directives;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.frontend.MethodReader;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.ir.Verifier;
import org.acc4j.compiler.pass.ArrayReductions;
import org.acc4j.compiler.pass.Bounds;
import org.acc4j.compiler.pass.Colours;
import org.acc4j.compiler.pass.DataClauses;
import org.acc4j.compiler.pass.Dataflow;
import org.acc4j.compiler.pass.Increments;
import org.acc4j.compiler.pass.MarchSteps;
import org.acc4j.compiler.pass.Marching;
import org.acc4j.compiler.pass.Parallelism;
import org.acc4j.compiler.pass.PrivateArrays;
import org.acc4j.compiler.pass.RegionSplitter;
import org.acc4j.compiler.pass.RowGroups;
import org.acc4j.compiler.pass.Tiling;
import org.acc4j.compiler.pass.Unrolling;
import org.acc4j.compiler.ptx.KernelEmitter;
import org.acc4j.compiler.ptx.TiledEmitter;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The compiler's phases in order, run on one method: {@link Phase} lists them, and this class runs them. Each
 * phase reads the outputs of the phases before it, which stay in the pipeline for inspection
 * ({@link #snapshot(Phase)}); {@link #advance} asserts that every phase follows the one before it in the list,
 * and the IR {@link Verifier} runs after each phase that makes or rewrites IR (with {@code -Dacc4j.verifyIr}).
 *
 * <p>The phases up to {@link Phase#MAPPING} work on the whole method; the back-end phases from
 * {@link Phase#ROW_GROUP} to {@link Phase#TILING} run once per region, region after region, so that the first
 * region that cannot be compiled is the one a diagnostic names. A pipeline is one compilation: it holds no state
 * shared with another, and two compilations may run at once.
 */
public final class Pipeline {
    /** The phases, in the order they run. */
    public enum Phase {
        /** {@link Inliner}: the application's static, private and final methods expanded in place (bytecode). */
        INLINE("inlining", false),
        /** {@link Directives}: the {@code @Kernels} flags and the {@code @Data} clauses read from the annotations. */
        DIRECTIVES("reading the directives", false),
        /** {@link MethodReader}: bytecode to structured IR, the loops with their {@code @Loop} clauses. */
        READ("reading", false),
        /** {@link PrivateArrays}: small arrays allocated in a loop body replaced by locals. */
        PRIVATE_ARRAYS("private arrays", false),
        /** {@link ArrayReductions}: reductions into a few array elements rewritten as scalar reductions. */
        ARRAY_REDUCTIONS("array reductions", false),
        /**
         * {@link org.acc4j.compiler.pass.Searches}: a loop that keeps the index of its greatest or least value split
         * into a reduction and a loop for the index.
         */
        SEARCHES("index-keeping searches", false),
        /**
         * {@link RegionSplitter}: one region per top-level loop nest, each with its reductions and host values. The
         * reductions ({@link org.acc4j.compiler.pass.Reductions#find}) are found here, nest by nest, not in a phase of
         * their own: a nest's reductions decide the split itself (a reduction's result is the only value that leaves
         * a loop, and the host values a later region receives are the reductions' results and what the host computes
         * from them), and each nest's refusals are reported in program order with the splitter's own.
         */
        SPLIT("region splitting", false),
        /** {@link Increments}: indirect increments made atomic where no two iterations can be told apart. */
        INCREMENTS("indirect increments", false),
        /** {@link RowGroups#prepare}: a {@code vector} clause on a row's inner loop set aside for its lane groups. */
        ROW_SHAPES("indirect increments and row groups", false),
        /**
         * {@link Parallelism}: which loops run in parallel and why; each region gets its {@code Mapping}; then
         * {@link Colours} rewrites a coloured region's loop over the colour order.
         */
        MAPPING("the parallelism decision", false),
        /** {@link RowGroups#find}: per region, a group of lanes per row of a row-wise (CSR) nest, or none. */
        ROW_GROUP("row groups", true),
        /** {@link Bounds}: per region, the accesses whose bounds the host can prove before a launch. */
        BOUNDS("bounds hoisting", true),
        /** {@link KernelEmitter}: per region, the checked kernel and, with hoisted bounds, the unchecked one. */
        EMIT("emission", true),
        /**
         * {@link Tiling} and {@link Marching}: per region with hoisted bounds, a tiled transpose or matmul, else a
         * marched stencil (its window loops unrolled first by {@link Unrolling}), in place of the unchecked variant.
         */
        TILING("tiling", true),
        /**
         * {@link DataClauses}: the explicit data clauses ({@link Directives}, read in the frontend) and an implicit one
         * for every other array; it reads the regions, never the class file.
         */
        DATA("data clauses", false);

        private final String title;
        private final boolean perRegion;

        Phase(String title, boolean perRegion) {
            this.title = title;
            this.perRegion = perRegion;
        }

        /** The phase's name in the verifier's messages. */
        public String title() {
            return title;
        }

        /** Whether the phase runs once per region (else once per method). */
        public boolean perRegion() {
            return perRegion;
        }
    }

    /**
     * The back end's output for one region.
     *
     * @param hoisted    the range checks the host proves before each launch; none when the kernel keeps them all
     * @param groupNotes the row-group phase's notes for the report
     */
    public record Kernel(Region region, RowGroup group, List<String> groupNotes, List<RangeCheck> hoisted,
                         KernelEmitter.Result checked, KernelPlan.Unchecked unchecked) {
        public Kernel {
            groupNotes = List.copyOf(groupNotes);
            hoisted = List.copyOf(hoisted);
        }

        /** What the runtime launches. */
        public KernelPlan plan() {
            return new KernelPlan(region, checked.entry(), checked.ptx(), checked.params(), checked.sites(), unchecked);
        }
    }

    private final ClassNode owner;
    private final MethodNode method;
    private final int sm;
    private final Inliner.ClassSource classes;
    private final List<Var> outputs;
    private Phase last;
    private final Map<Phase, Object> outputsByPhase = new EnumMap<>(Phase.class);

    private Inliner.Expanded expanded;
    /** The parameters the method uses as objects ({@link MethodReader#read(ClassNode, MethodNode, java.util.Set)}). */
    private final java.util.Set<Integer> receivers = new java.util.TreeSet<>();
    private Directives directives;
    private PrivateArrays.Result privates;
    private ArrayReductions.Result arrays;
    private org.acc4j.compiler.pass.Searches.Result searches;
    private final List<String> incrementNotes = new ArrayList<>();
    private RowGroups.Prepared prepared;
    private List<Region> regions;
    private final List<Kernel> kernels = new ArrayList<>();
    private List<DataClause> data;

    private Pipeline(ClassNode owner, MethodNode method, int sm, Inliner.ClassSource classes, List<Var> outputs) {
        this.owner = owner;
        this.method = method;
        this.sm = sm;
        this.classes = classes;
        this.outputs = List.copyOf(outputs);
    }

    /**
     * Runs every phase on method {@code mn} of {@code cn} (which the compiler does not change).
     *
     * @throws Unsupported naming the first construct the device cannot run
     */
    public static Pipeline run(ClassNode cn, MethodNode mn, int sm, Inliner.ClassSource classes, List<Var> outputs) {
        Pipeline p = new Pipeline(cn, mn, sm, classes, outputs);
        p.frontEnd();
        p.middle();
        for (Region r : p.regions) {
            p.backEnd(r);
        }
        p.advance(Phase.DATA);
        p.data = DataClauses.resolve(p.directives, p.regions);
        p.keep(Phase.DATA, p.data);
        return p;
    }

    private void frontEnd() {
        advance(Phase.INLINE);
        expanded = Inliner.expand(owner, method, classes);
        keep(Phase.INLINE, expanded);
        advance(Phase.DIRECTIVES);
        directives = Directives.read(owner, method);
        keep(Phase.DIRECTIVES, directives);
        advance(Phase.READ);
        MethodBody read = org.acc4j.compiler.pass.StackCopies.fold(MethodReader.read(owner, expanded.method(),
                receivers, !expanded.virtuals().isEmpty(), expanded.objects()));
        verified(Phase.READ, read);
        advance(Phase.PRIVATE_ARRAYS);
        privates = PrivateArrays.rewrite(read);
        verified(Phase.PRIVATE_ARRAYS, privates.body());
        advance(Phase.ARRAY_REDUCTIONS);
        arrays = ArrayReductions.rewrite(privates.body(), directives.relaxed());
        verified(Phase.ARRAY_REDUCTIONS, arrays.body());
        advance(Phase.SEARCHES);
        searches = org.acc4j.compiler.pass.Searches.rewrite(arrays.body());
        verified(Phase.SEARCHES, searches.body());
    }

    private void middle() {
        MethodBody body = body();
        advance(Phase.SPLIT);
        verified(Phase.SPLIT, RegionSplitter.split(body, outputs));
        advance(Phase.INCREMENTS);
        verified(Phase.INCREMENTS, Increments.apply(regions(Phase.SPLIT), incrementNotes));
        advance(Phase.ROW_SHAPES);
        prepared = RowGroups.prepare(regions(Phase.INCREMENTS));
        verified(Phase.ROW_SHAPES, prepared.regions());
        advance(Phase.MAPPING);
        regions = Colours.lower(Parallelism.decideAll(prepared.regions(), directives.serial(), directives.relaxed()),
                incrementNotes, Dataflow.lastAccess(body().body()));
        verified(Phase.MAPPING, regions);
    }

    private void backEnd(Region r) {
        MethodBody body = body();
        String simple = owner.name.substring(owner.name.lastIndexOf('/') + 1);
        String entry = Compiler.KernelEmitterNames.entry(simple, method.name, r.ordinal());
        advance(Phase.ROW_GROUP);
        List<String> groupNotes = new ArrayList<>();
        RowGroup group = RowGroups.find(r, prepared.asked().get(r.ordinal()), groupNotes);
        advance(Phase.BOUNDS);
        List<RangeCheck> hoisted = Bounds.hoistable(r);
        advance(Phase.EMIT);
        KernelEmitter.Result k = KernelEmitter.emit(body, r, entry, sm, List.of(), group);
        KernelPlan.Unchecked unchecked = null;
        if (!hoisted.isEmpty()) {
            KernelEmitter.Result u = KernelEmitter.emitProven(body, r, entry + "_nc", sm, hoisted, group);
            if (!u.params().equals(k.params())) {
                throw new IllegalStateException("the unchecked variant of " + entry + " has other parameters");
            }
            unchecked = new KernelPlan.Unchecked(u.entry(), u.ptx(), u.sites(), hoisted);
        }
        advance(Phase.TILING);
        if (!hoisted.isEmpty()) {
            Tiling.Kernel tiled = Tiling.transpose(body, r, hoisted, k.params());
            if (tiled == null) {
                tiled = Tiling.matmul(body, r, hoisted, k.params(), Tiling.MatmulTile.configured(),
                        directives.relaxed() && sm >= 90);
            }
            if (tiled != null) {
                unchecked = new KernelPlan.Unchecked(entry + "_tiled", TiledEmitter.emit(body, tiled,
                        entry + "_tiled", k.params(), sm), List.of(), hoisted, tiled);
            } else if (group == null) {
                unchecked = marched(body, r, hoisted, entry, k.params(), unchecked);
            }
        }
        kernels.add(new Kernel(r, group, groupNotes, hoisted, k, unchecked));
        for (Phase phase : List.of(Phase.ROW_GROUP, Phase.BOUNDS, Phase.EMIT, Phase.TILING)) {
            keep(phase, List.copyOf(kernels));
        }
    }

    /**
     * The unchecked variant of a stencil nest marched by {@link Marching}, or {@code plain} when it has not the shape
     * (or its kernel would take other parameters).
     */
    private KernelPlan.Unchecked marched(MethodBody body, Region r, List<RangeCheck> hoisted, String entry,
                                         List<KernelParam> params, KernelPlan.Unchecked plain) {
        Set<Integer> proven = new HashSet<>();
        hoisted.forEach(c -> proven.add(c.access()));
        // a window summed by constant-trip loops is unrolled first, so that its taps are fixed offsets
        Unrolling.Result u = Unrolling.unroll(body, r);
        Marching.Kernel m = u == null ? Marching.march(body, r, proven)
                : Marching.march(body, u.region(), Unrolling.proven(proven, u.copies()));
        if (m == null) {
            return plain;
        }
        if (m.region().mapping().levels().size() == 2) {
            if (MarchSteps.hoisting(MarchSteps.HOIST_2D)) {
                m = MarchSteps.hoist(body, m);
            }
            m = MarchSteps.unroll(body, m, MarchSteps.steps(MarchSteps.configured(MarchSteps.DEFAULT_2D),
                    MarchSteps.chunkOf(m.region())));
        }
        KernelEmitter.Result k = KernelEmitter.emitLike(body, m.region(), entry + "_marched", sm, m.unchecked(), params,
                hoisted);
        return k.params().equals(params) ? new KernelPlan.Unchecked(k.entry(), k.ptx(), k.sites(), hoisted, null,
                m.region()) : plain;
    }

    /**
     * Marks the start of {@code next}, which must follow the last phase run: the next in {@link Phase}'s order, or
     * the first per-region phase again after the last one (the next region), or {@link Phase#DATA} straight after
     * {@link Phase#MAPPING} when the method has no region.
     */
    void advance(Phase next) {
        int expected = last == null ? 0 : last.ordinal() + 1;
        boolean nextRegion = last == Phase.TILING && next == Phase.ROW_GROUP;
        boolean noRegion = last == Phase.MAPPING && next == Phase.DATA && regions.isEmpty();
        if (next.ordinal() != expected && !nextRegion && !noRegion) {
            throw new IllegalStateException("the phase " + next + " runs after " + (last == null ? "none" : last)
                    + "; the order is " + java.util.Arrays.toString(Phase.values()));
        }
        last = next;
    }

    private void keep(Phase phase, Object output) {
        outputsByPhase.put(phase, output);
    }

    private void verified(Phase phase, MethodBody body) {
        keep(phase, body);
        Verifier.check(phase.title(), body);
    }

    private void verified(Phase phase, List<Region> rs) {
        keep(phase, List.copyOf(rs));
        Verifier.check(phase.title(), body(), rs);
    }

    @SuppressWarnings("unchecked")
    private List<Region> regions(Phase phase) {
        return (List<Region>) outputsByPhase.get(phase);
    }

    /** The last phase run. */
    public Phase last() {
        return last;
    }

    /** The method's IR as the kernels see it: after the frontend's rewrites. */
    public MethodBody body() {
        return searches.body();
    }

    /** The inliner's output: the expanded method and the calls it inlined. */
    public Inliner.Expanded expanded() {
        return expanded;
    }

    /** The method's directives. */
    public Directives directives() {
        return directives;
    }

    /** The notes of the frontend's rewrites and of the increments phase, in phase order, for the report. */
    public List<String> rewriteNotes() {
        List<String> notes = new ArrayList<>();
        for (String call : expanded.inlined()) {
            notes.add("inlined " + call);
        }
        notes.addAll(privates.notes());
        notes.addAll(arrays.notes());
        notes.addAll(searches.notes());
        notes.addAll(incrementNotes);
        return notes;
    }

    /** The regions as mapped, in order. */
    public List<Region> regions() {
        return regions;
    }

    /** The back end's output, one per region in order. */
    public List<Kernel> kernels() {
        return List.copyOf(kernels);
    }

    /** The data clauses. */
    public List<DataClause> data() {
        return data;
    }

    /** The variables whose final values a call gives back. */
    public List<Var> outputs() {
        return outputs;
    }

    /** The compiled method, with the report {@link CompileReport} builds from the phases' outputs. */
    public CompiledMethod compiled() {
        List<KernelPlan> plans = kernels.stream().map(Kernel::plan).toList();
        return new CompiledMethod(body(), plans, data, CompileReport.of(owner, this), outputs,
                new CompiledMethod.Guards(expanded.virtuals(), List.copyOf(receivers)));
    }

    /**
     * The output of {@code phase} as text, for tests and dumps: the IR after the phases that make or rewrite it
     * (after {@link Phase#SPLIT}, region by region, and from {@link Phase#MAPPING} on with each region's mapping),
     * per region the back end's decision (the row group, the hoisted checks, the checked kernel's PTX, the unchecked or
 * tiled variant's PTX), the clauses after {@link Phase#DATA}; null for a phase not run.
     */
    public String snapshot(Phase phase) {
        Object out = outputsByPhase.get(phase);
        if (out == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        if (out instanceof MethodBody m) {
            b.append(IrPrinter.print(m));
        } else if (phase.perRegion()) {
            for (Kernel k : kernels) {
                b.append("// region ").append(k.region().ordinal()).append(": ").append(k.region().mapping()).append('\n');
                switch (phase) {
                    case ROW_GROUP -> b.append("// row group: ").append(k.group()).append('\n');
                    case BOUNDS -> k.hoisted().forEach(c -> b.append("// hoisted: ").append(c).append('\n'));
                    case EMIT -> b.append(k.checked().ptx());
                    default -> b.append(k.unchecked() != null ? k.unchecked().ptx() : "// no unchecked variant\n");
                }
            }
        } else if (phase == Phase.DATA) {
            data.forEach(c -> b.append("data ").append(c).append('\n'));
        } else if (phase.compareTo(Phase.SPLIT) >= 0 && phase.compareTo(Phase.MAPPING) <= 0) {
            for (Region r : regions(phase)) {
                b.append("region ").append(r.ordinal());
                if (r.mapping() != null) {
                    b.append(": ").append(r.mapping());
                }
                b.append('\n');
                List<Stmt> all = new ArrayList<>(r.prologue());
                all.add(r.loop());
                b.append(IrPrinter.print(all));
            }
        } else {
            b.append(out).append('\n');
        }
        return b.toString();
    }
}
