package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;

/**
 * The mapping step of {@link Parallelism}: which grid and block axes the parallel levels of a nest get, following the
 * OpenUH rules (Xiaonan Tian, Rengan Xu, Yonghong Yan, Zhifeng Yun, Sunita Chandrasekaran and Barbara Chapman,
 * <i>Compiling a High-level Directive-Based Programming Model for GPGPUs</i>): levels with a vector get block axes,
 * the coalescing level (the stride-1 subscript of most accesses) on x; levels with a gang get grid axes.
 */
final class GridMapping {
    private final Parallelism analysis;

    GridMapping(Parallelism analysis) {
        this.analysis = analysis;
    }

    Mapping map(List<List<Stmt.For>> chain, boolean user) {
        int n = chain.size();
        boolean[] gang = new boolean[n];
        boolean[] vector = new boolean[n];
        boolean anyVector = false;
        for (int l = 0; l < n; l++) {
            LoopSpec s = chain.get(l).get(0).spec();
            gang[l] = !user || s.gang() != LoopSpec.OFF || !s.hasParallelLevel();
            vector[l] = user && (s.vector() != LoopSpec.OFF || s.worker() != LoopSpec.OFF);
            anyVector |= vector[l];
        }
        int x = coalescing(chain, user ? vector : null);
        if (!user) {
            // the coalescing level gets gang vector(128); the next one inwards (else outwards) gang vector(2):
            // 256-thread blocks, measured faster than 128 x 1 on a memory-bound 2D stencil (Jacobi 8192^2)
            vector[x] = true;
            int second = x + 1 < n ? x + 1 : x - 1;
            if (second >= 0) {
                vector[second] = true;
            }
        } else if (!anyVector) {
            // only gang or independent: the coalescing level also gets the vector
            for (int l = 0; l < n; l++) {
                LoopSpec s = chain.get(l).get(0).spec();
                if (s.gang() == LoopSpec.OFF) {
                    gang[l] = true;
                }
            }
            vector[x] = true;
        }
        int[] blockAxis = new int[n];
        int[] gridAxis = new int[n];
        java.util.Arrays.fill(blockAxis, Mapping.NONE);
        java.util.Arrays.fill(gridAxis, Mapping.NONE);
        int next = 0;
        if (vector[x]) {
            blockAxis[x] = next++;
        }
        for (int l = n - 1; l >= 0; l--) {
            if (vector[l] && l != x) {
                blockAxis[l] = next++;
            }
        }
        next = 0;
        for (int l = n - 1; l >= 0; l--) {
            if (gang[l]) {
                gridAxis[l] = next++;
            }
        }
        int[] block = {1, 1, 1};
        for (int l = 0; l < n; l++) {
            if (blockAxis[l] != Mapping.NONE) {
                LoopSpec s = chain.get(l).get(0).spec();
                int auto = user ? Parallelism.AUTO_VECTOR[blockAxis[l]] : blockAxis[l] == 0 ? 128 : 2;
                int v = s.vector() > 0 ? s.vector() : s.vector() == LoopSpec.AUTO ? auto : 0;
                int w = s.worker() > 0 ? s.worker() : s.worker() == LoopSpec.AUTO ? (v == 0 ? auto : 1) : 0;
                int extent = v == 0 && w == 0 ? auto : Math.max(v, 1) * Math.max(w, 1);
                block[blockAxis[l]] = extent;
            }
        }
        long threads = (long) block[0] * block[1] * block[2];
        if (threads > 1024 || block[2] > 64) {
            throw new Unsupported(analysis.top.line(), "a block of " + block[0] + " x " + block[1] + " x " + block[2]
                    + " threads (at most 1024 in all, and 64 on z)");
        }
        List<Mapping.GridDim> grid = new ArrayList<>(List.of(new Mapping.Unused(), new Mapping.Unused(), new Mapping.Unused()));
        List<Mapping.Level> levels = new ArrayList<>();
        for (int l = 0; l < n; l++) {
            LoopSpec s = chain.get(l).get(0).spec();
            if (gridAxis[l] != Mapping.NONE) {
                int axis = gridAxis[l];
                long max = axis == 0 ? Integer.MAX_VALUE : 65535;
                if (s.gang() > 0) {
                    if (s.gang() > max) {
                        throw new Unsupported(chain.get(l).get(0).line(), "gang(" + s.gang() + ") on grid axis "
                                + Mapping.AXES[axis] + " (at most " + max + ")");
                    }
                    grid.set(axis, new Mapping.Fixed(s.gang()));
                } else {
                    int perBlock = blockAxis[l] == Mapping.NONE ? 1 : block[blockAxis[l]];
                    grid.set(axis, new Mapping.FromTrip(l, perBlock, n == 1 ? 0 : max, 0));
                }
            }
            String why = (user ? "mapped by the user " + s : "parallelizable")
                    + (l == x && blockAxis[l] == 0 && n > 1 ? "; on threadIdx.x for coalescing (stride-1 subscripts)" : "");
            levels.add(new Mapping.Level(chain.get(l), gridAxis[l], blockAxis[l], why));
        }
        return new Mapping(levels, block, grid, name(gridAxis, blockAxis));
    }

    /** The level whose (innermost) index is the unit-stride subscript of most analysis.accesses; ties go inwards. */
    int coalescing(List<List<Stmt.For>> chain, boolean[] eligible) {
        int best = -1;
        int bestCount = -1;
        for (int l = 0; l < chain.size(); l++) {
            if (eligible != null && !eligible[l] && anyTrue(eligible)) {
                continue;
            }
            Stmt.For f = chain.get(l).get(chain.get(l).size() - 1);
            int count = 0;
            for (Parallelism.Access a : analysis.accesses) {
                if (a.loops().contains(f) && a.indexForm() != null && a.indexForm().unit(f.index())) {
                    count++;
                }
            }
            if (count >= bestCount) {
                best = l;
                bestCount = count;
            }
        }
        return best;
    }

    static boolean anyTrue(boolean[] b) {
        for (boolean v : b) {
            if (v) {
                return true;
            }
        }
        return false;
    }

    static String name(int[] grid, int[] block) {
        int n = grid.length;
        StringBuilder shape = new StringBuilder();
        for (int l = 0; l < n; l++) {
            boolean g = grid[l] != Mapping.NONE;
            boolean v = block[l] != Mapping.NONE;
            shape.append(g && v ? "GV" : g ? "G" : v ? "V" : "-").append(' ');
        }
        String s = shape.toString().trim();
        return switch (s) {
            case "GV" -> "Map1";
            case "G V" -> "Map2_1";
            case "GV V" -> "Map2_2";
            case "G GV" -> "Map2_3";
            case "GV GV" -> "Map2_4";
            case "G GV V" -> "Map3_1";
            case "V GV GV" -> "Map3_2";
            case "V GV G" -> "Map3_3";
            default -> "mapping " + s.replace("GV", "gang vector").replace("G", "gang").replace("V", "vector");
        };
    }
}
