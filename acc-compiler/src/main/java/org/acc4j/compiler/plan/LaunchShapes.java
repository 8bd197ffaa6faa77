package org.acc4j.compiler.plan;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Reduction;

/**
 * The block shapes a kernel may launch with in place of its mapping's, for timing at run time, or why it keeps its
 * own.
 *
 * <p>A kernel of the loop mappings reads its block's extents at run time ({@code %ntid}): each thread starts a level
 * at {@code blockIdx * blockDim + threadIdx} and strides by {@code gridDim * blockDim} ({@link Mapping}), so any
 * block runs every iteration exactly once with the same per-thread code, and a nest without a cross-thread
 * combination computes the same bits whatever the block. A shape is offered only where that holds for every result:
 * <ul>
 * <li>not for a tiled kernel (its block is its tile's, declared in its PTX), a scan (its tiles are its blocks) or a
 * group of lanes per row (the lanes split each block);</li>
 * <li>not for a {@code float} or {@code double} reduction: its partial values are combined per block
 * ({@code ptx-templates} Reductions), so another block rounds differently; integer, boolean and bitwise reductions
 * wrap or are exact, and give the same bits in any order;</li>
 * <li>not where {@code @Loop(vector = n)} or {@code worker = n} fixed an extent of the block: the block is the
 * user's.</li>
 * </ul>
 * The candidates keep the mapping's number of block axes: one axis takes 64 to 1024 threads, two take the shapes
 * of hand-written 2D stencils (32 × 8, 64 × 4, 16 × 16, ...), three a few boxes; the mapping's own block comes
 * first.
 */
public final class LaunchShapes {
    /** Candidates for one block axis (x). */
    static final int[][] ONE_AXIS = {{128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}, {64, 1, 1}};
    /** Candidates for two block axes (x, y). */
    static final int[][] TWO_AXES = {{128, 2, 1}, {32, 8, 1}, {64, 4, 1}, {64, 8, 1}, {256, 1, 1}, {32, 16, 1},
        {16, 16, 1}};
    /** Candidates for three block axes. */
    static final int[][] THREE_AXES = {{32, 4, 2}, {32, 8, 1}, {64, 2, 2}, {32, 4, 4}, {128, 2, 1}, {16, 8, 4}};

    /**
     * What a kernel variant may launch with.
     *
     * @param blocks the block shapes, the mapping's own first; only that one when {@code fixedWhy} is set
     * @param fixedWhy why the kernel keeps its mapping's block, or null when the others may be timed
     */
    public record Choice(List<int[]> blocks, String fixedWhy) {
        public Choice {
            blocks = blocks.stream().map(int[]::clone).toList();
        }

        /** Whether other shapes than the mapping's may be timed. */
        public boolean tunable() {
            return fixedWhy == null && blocks.size() > 1;
        }
    }

    private LaunchShapes() {
    }

    /** The shapes of the variant of {@code plan} that {@code proven} picks ({@link KernelPlan#launchMapping}). */
    public static Choice of(KernelPlan plan, boolean proven) {
        Mapping m = plan.launchMapping(proven);
        int[] own = m.block();
        String why = fixedWhy(plan, proven, m);
        if (why != null) {
            return new Choice(List.of(own), why);
        }
        int axes = 0;
        for (Mapping.Level l : m.levels()) {
            if (l.blockAxis() != Mapping.NONE) {
                axes = Math.max(axes, l.blockAxis() + 1);
            }
        }
        int[][] table = axes == 1 ? ONE_AXIS : axes == 2 ? TWO_AXES : THREE_AXES;
        List<int[]> blocks = new ArrayList<>();
        blocks.add(own);
        for (int[] b : table) {
            if (!java.util.Arrays.equals(b, own)) {
                blocks.add(b);
            }
        }
        return new Choice(blocks, null);
    }

    private static String fixedWhy(KernelPlan plan, boolean proven, Mapping m) {
        if (proven && plan.unchecked() != null && plan.unchecked().tiled() != null) {
            return "a tiled kernel: its block is its tile's";
        }
        if (plan.region().scan() != null) {
            return "a scan: its tiles are its blocks";
        }
        for (KernelParam p : plan.params()) {
            if (p instanceof KernelParam.RowLanes) {
                return "a group of lanes per row: the lanes split each block";
            }
        }
        for (Reduction r : plan.region().reductions()) {
            if (r.type().isFloat()) {
                return "its " + r.type().javaName() + " reduction of "
                        + r.var().name() + " combines per block, so another block rounds differently";
            }
        }
        boolean anyAxis = false;
        for (Mapping.Level l : m.levels()) {
            if (l.blockAxis() == Mapping.NONE) {
                continue;
            }
            anyAxis = true;
            for (org.acc4j.compiler.ir.Stmt.For f : l.loops()) {
                LoopSpec s = f.spec();
                if (s.vector() > 0 || s.worker() > 0) {
                    return "its block is set by @Loop at line " + f.line();
                }
            }
        }
        if (!anyAxis) {
            return "one thread a block";
        }
        String ptx = proven && plan.unchecked() != null ? plan.unchecked().ptx() : plan.ptx();
        if (ptx.contains(".maxntid") || ptx.contains(".reqntid")) {
            return "its PTX declares its block";
        }
        return null;
    }

    /**
     * The grid of a launch of {@code mapping} with {@code block} in place of its own, each axis at most {@code cap};
     * null when the outer level runs no iteration (see {@link Mapping#grid}).
     */
    static int[] grid(Mapping mapping, int[] block, Evaluator ev, int fullDevice, long cap) {
        return mapping.withBlock(block).grid(ev, fullDevice, cap);
    }

    /** Each parallel level's trip count for a launch, outermost first (-1 where it depends on the nest). */
    static long[] trips(Mapping mapping, Evaluator ev) {
        long[] t = new long[mapping.levels().size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = Mapping.trip(mapping.levels().get(i), ev);
        }
        return t;
    }
}
