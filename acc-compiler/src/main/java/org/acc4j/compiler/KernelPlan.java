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
public record KernelPlan(Region region, String entry, String ptx, List<KernelParam> params, List<ErrorSite> sites) {
    public KernelPlan {
        params = List.copyOf(params);
        sites = List.copyOf(sites);
    }

    public Mapping mapping() {
        return region.mapping();
    }
}
