package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;

/**
 * One kernel of a compiled method: its PTX and what the runtime needs to launch it.
 * The launch geometry is the region's {@link Mapping}: the block's shape is fixed, the grid's is fixed or
 * computed from trip counts before each launch.
 */
public record KernelPlan(Region region, String entry, String ptx, List<KernelParam> params, List<ErrorSite> sites,
                         Unchecked unchecked) {
    public KernelPlan {
        params = List.copyOf(params);
        sites = List.copyOf(sites);
    }

    public KernelPlan(Region region, String entry, String ptx, List<KernelParam> params, List<ErrorSite> sites) {
        this(region, entry, ptx, params, sites, null);
    }

    /**
     * The same kernel without the bounds checks the host can prove before a launch (same parameters): launched
     * instead of the checked one when every one of {@code checks} holds for the call. With {@code tiled}, it is
     * a tiled kernel ({@link org.acc4j.compiler.pass.Tiling}) launched with its own geometry,
     * {@link #launch(Mapping)}. With {@code marched}, it is the kernel of that rewritten region
     * ({@link org.acc4j.compiler.pass.Marching}), launched with the region's mapping.
     */
    public record Unchecked(String entry, String ptx, List<ErrorSite> sites, List<org.acc4j.compiler.ir.RangeCheck> checks,
                            org.acc4j.compiler.pass.Tiling.Kernel tiled, Region marched) {
        public Unchecked {
            sites = List.copyOf(sites);
            checks = List.copyOf(checks);
        }

        public Unchecked(String entry, String ptx, List<ErrorSite> sites, List<org.acc4j.compiler.ir.RangeCheck> checks) {
            this(entry, ptx, sites, checks, null, null);
        }

        public Unchecked(String entry, String ptx, List<ErrorSite> sites, List<org.acc4j.compiler.ir.RangeCheck> checks,
                         org.acc4j.compiler.pass.Tiling.Kernel tiled) {
            this(entry, ptx, sites, checks, tiled, null);
        }

        /**
         * The geometry this variant launches with: the tiled kernel's own, the marched region's, else the region's
         * {@code plain}.
         */
        public Mapping launch(Mapping plain) {
            return tiled != null ? tiled.launch() : marched != null ? marched.mapping() : plain;
        }

        /** The dynamic shared memory per block this variant launches with, in bytes. */
        public int dynamicShared() {
            return tiled != null ? tiled.dynamicShared() : 0;
        }
    }

    /** The geometry of a launch of the variant {@code proven} picks (see {@link #provenInBounds}). */
    public Mapping launchMapping(boolean proven) {
        return proven && unchecked != null ? unchecked.launch(region.mapping()) : region.mapping();
    }

    /** The variant to launch for a call whose host values {@code ev} gives: unchecked when every proof holds. */
    public boolean provenInBounds(org.acc4j.compiler.ir.Evaluator ev,
                                  java.util.function.Function<org.acc4j.compiler.ir.ArrayRef, Object> arrays) {
        return provenInBounds(ev, arrays, org.acc4j.compiler.ir.RangeCheck.NO_ROW_LENGTHS);
    }

    /** {@link #provenInBounds(org.acc4j.compiler.ir.Evaluator, java.util.function.Function)} with rows' lengths known. */
    public boolean provenInBounds(org.acc4j.compiler.ir.Evaluator ev,
                                  java.util.function.Function<org.acc4j.compiler.ir.ArrayRef, Object> arrays,
                                  org.acc4j.compiler.ir.RangeCheck.RowLengths rowLengths) {
        if (unchecked == null) {
            return false;
        }
        for (org.acc4j.compiler.ir.RangeCheck c : unchecked.checks()) {
            if (!c.holds(ev, arrays, rowLengths)) {
                return false;
            }
        }
        return true;
    }

    public Mapping mapping() {
        return region.mapping();
    }
}
