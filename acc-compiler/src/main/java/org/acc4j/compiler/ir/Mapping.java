package org.acc4j.compiler.ir;

import java.util.List;

/**
 * How a region's parallel loops sit on the CUDA grid: the OpenUH mappings (Map1, Map2_1..2_4, Map3_1..3_3),
 * generalised. Each {@link Level} is one parallel loop (or a group of loops collapsed into one) with at most
 * one grid axis (its gang) and at most one block axis (its vector). A thread runs level {@code l} from
 * {@code start = blockIdx[g] * blockDim[b] + threadIdx[b]} with stride {@code gridDim[g] * blockDim[b]}
 * (a missing axis contributes index 0 and extent 1), so every combination of the levels' iterations runs in
 * exactly one thread, whatever the grid's size.
 *
 * @param levels the parallel levels, outermost first
 * @param block the block's extent on x, y, z
 * @param grid the grid on x, y, z
 * @param name the seed's name for this mapping when it is one of them ("Map2_3"), else a description
 */
public record Mapping(List<Level> levels, int[] block, List<GridDim> grid, String name) {
    public static final int NONE = -1;
    public static final String[] AXES = {"x", "y", "z"};

    public Mapping {
        levels = List.copyOf(levels);
        block = block.clone();
        grid = List.copyOf(grid);
    }

    /**
     * One parallel level.
     *
     * @param loops the loop, or the loops collapsed into it (outermost first, perfectly nested)
     * @param gridAxis 0..2, or {@link #NONE} when the level has no gang
     * @param blockAxis 0..2, or {@link #NONE} when the level has no vector or worker
     * @param why the reason, for the report
     */
    public record Level(List<Stmt.For> loops, int gridAxis, int blockAxis, String why) {
        public Level {
            loops = List.copyOf(loops);
        }

        public Stmt.For outer() {
            return loops.get(0);
        }

        public Stmt.For inner() {
            return loops.get(loops.size() - 1);
        }

        public boolean contains(Stmt.For f) {
            for (Stmt.For l : loops) {
                if (l == f) {
                    return true;
                }
            }
            return false;
        }

        /** The CUDA expression of this level's first iteration, for reports and the CUDA rendering. */
        public String startExpr() {
            String g = gridAxis == NONE ? null : "blockIdx." + AXES[gridAxis];
            String b = blockAxis == NONE ? null : AXES[blockAxis];
            if (g != null && b != null) {
                return g + " * blockDim." + b + " + threadIdx." + b;
            }
            return g != null ? g : b != null ? "threadIdx." + b : "0";
        }

        /** The CUDA expression of this level's stride. */
        public String strideExpr() {
            String g = gridAxis == NONE ? null : "gridDim." + AXES[gridAxis];
            String b = blockAxis == NONE ? null : "blockDim." + AXES[blockAxis];
            if (g != null && b != null) {
                return g + " * " + b;
            }
            return g != null ? g : b != null ? b : "1";
        }
    }

    /** The grid's extent on one axis. */
    public sealed interface GridDim {
    }

    /** Axis unused: extent 1. */
    public record Unused() implements GridDim {
    }

    /** The user's {@code gang(n)}. */
    public record Fixed(int blocks) implements GridDim {
    }

    /**
     * Enough blocks that each thread of the level's axis gets one iteration: {@code ceil(trip / perBlock)},
     * capped at {@code max}; the runtime evaluates the level's trip count before launch, and uses
     * {@code fallback} when it cannot (bounds that depend on an enclosing loop).
     */
    public record FromTrip(int level, int perBlock, long max, int fallback) implements GridDim {
    }

    /** The level's trip count (the product over collapsed loops), or -1 when it depends on the nest. */
    public static long trip(Level level, Evaluator ev) {
        long total = 1;
        try {
            for (Stmt.For f : level.loops()) {
                long t = Evaluator.tripCount(ev.evalLong(f.lower()), f.cond(), ev.evalLong(f.bound()), f.step());
                total = Math.multiplyExact(total, t);
            }
            return total;
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return -1;
        }
    }

    /**
     * The loops of the parallel levels whose trip count is Java's only for some values, outermost first: {@code !=}
     * loops, and loops with a {@link Stmt.Stride}. The runtime checks them before each launch ({@link #checkLoops}).
     */
    public List<Stmt.For> checkedLoops() {
        List<Stmt.For> out = new java.util.ArrayList<>();
        for (Level l : levels) {
            for (Stmt.For f : l.loops()) {
                if (f.cond() == Cond.NE || f.stride() != null) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /**
     * Null when every loop of {@link #checkedLoops} runs Java's iterations for the values {@code ev} gives (a
     * {@code !=} loop reaches its bound in whole steps, a {@link Stmt.Stride} passes {@link Stmt.Stride#check}),
     * else the reason: the launch must not happen and the call runs on the host, where Java's loop runs as it does.
     *
     * @param ev an evaluator that has run the region's prologue
     * @throws Evaluator.NotEvaluable when a bound cannot be evaluated on the host
     */
    public String checkLoops(Evaluator ev) {
        for (Stmt.For f : checkedLoops()) {
            if (f.stride() != null) {
                String why = f.stride().check(ev);
                if (why != null) {
                    return why;
                }
                continue;
            }
            long lower = ev.evalLong(f.lower());
            long bound = ev.evalLong(f.bound());
            try {
                Evaluator.tripCount(lower, Cond.NE, bound, f.step());
            } catch (ArithmeticException e) {
                return "the loop over " + f.index().name() + " at line " + f.line() + " (" + f.index().name() + " != "
                        + f.bound() + "): " + e.getMessage();
            }
        }
        return null;
    }

    /**
     * The grid on x, y, z for a launch, each axis at most {@code cap}. {@code fullDevice} is the number of blocks
     * that fill every SM (the cap of a single loop's gangs, and the x extent when a trip count is unknown).
     *
     * @param ev an evaluator that has run the region's prologue
     * @return null when the outer level runs no iteration
     */
    public int[] grid(Evaluator ev, int fullDevice, long cap) {
        int[] dims = {1, 1, 1};
        for (int axis = 0; axis < 3; axis++) {
            GridDim d = grid.get(axis);
            long blocks = 1;
            if (d instanceof Fixed f) {
                blocks = f.blocks();
            } else if (d instanceof FromTrip t) {
                long trip = trip(levels.get(t.level()), ev);
                if (trip == 0 && t.level() == 0) {
                    return null;
                }
                long max = t.max() == 0 ? fullDevice : t.max();
                blocks = trip < 0 ? (axis == 0 ? fullDevice : Math.min(max, 64)) : (trip + t.perBlock() - 1) / t.perBlock();
                blocks = Math.min(blocks, max);
            }
            dims[axis] = (int) Math.max(1, Math.min(blocks, cap));
        }
        return dims;
    }

    /**
     * The same mapping with another block: every level keeps its axes, so each thread still runs every combination of
     * the levels' iterations exactly once (the kernel reads its block's extent at run time); a grid extent computed
     * from a trip count divides by the new block's extent on that level's block axis.
     */
    public Mapping withBlock(int[] other) {
        if (other.length != 3 || other[0] < 1 || other[1] < 1 || other[2] < 1) {
            throw new IllegalArgumentException("a block has three extents of at least 1");
        }
        List<GridDim> dims = new java.util.ArrayList<>(grid);
        for (int axis = 0; axis < 3; axis++) {
            if (dims.get(axis) instanceof FromTrip t) {
                int b = levels.get(t.level()).blockAxis();
                dims.set(axis, new FromTrip(t.level(), b == NONE ? t.perBlock() : other[b], t.max(), t.fallback()));
            }
        }
        return new Mapping(levels, other, dims, name);
    }

    /** Whether every grid axis is known at compile time (no extent computed from a trip count at launch). */
    public boolean gridFixed() {
        return grid.stream().noneMatch(d -> d instanceof FromTrip);
    }

    /**
     * The grid and block for the report, e.g. {@code grid(ceil(trip(i) / 128), 1, 1) x block(128, 1, 1)}: each
     * grid axis is its extent when fixed, else how the launch computes it.
     */
    public String shape() {
        StringBuilder b = new StringBuilder("grid(");
        for (int axis = 0; axis < 3; axis++) {
            GridDim d = grid.get(axis);
            b.append(axis > 0 ? ", " : "");
            if (d instanceof Fixed f) {
                b.append(f.blocks());
            } else if (d instanceof FromTrip t) {
                StringBuilder loops = new StringBuilder();
                for (Stmt.For f : levels.get(t.level()).loops()) {
                    loops.append(loops.length() > 0 ? "*" : "").append(f.index().name());
                }
                b.append(t.perBlock() == 1 ? "trip(" + loops + ")" : "ceil(trip(" + loops + ") / " + t.perBlock() + ")");
                b.append(t.max() == 0 ? " at most SMs * blocks per SM" : t.max() < Integer.MAX_VALUE ? " at most " + t.max() : "");
            } else {
                b.append(1);
            }
        }
        return b.append(") x block(").append(block[0]).append(", ").append(block[1]).append(", ").append(block[2])
                .append(")").toString();
    }

    public Level levelOf(Stmt.For f) {
        for (Level l : levels) {
            if (l.contains(f)) {
                return l;
            }
        }
        return null;
    }

    public int threads() {
        return block[0] * block[1] * block[2];
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(name).append(": block(").append(block[0]).append(", ").append(block[1])
                .append(", ").append(block[2]).append(")");
        for (Level l : levels) {
            b.append("; ");
            for (Stmt.For f : l.loops) {
                b.append(f.index().name());
            }
            b.append(" from ").append(l.startExpr()).append(" by ").append(l.strideExpr());
        }
        return b.toString();
    }
}
