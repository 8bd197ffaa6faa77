package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Region;

/**
 * One kernel of a compiled method: its PTX and what the runtime needs to launch it.
 *
 * @param gang the number of blocks the user asked for, or 0 to let the runtime choose from the device
 * @param vector threads per block
 */
public record KernelPlan(Region region, String entry, String ptx, List<KernelParam> params, List<ErrorSite> sites,
                         int gang, int vector) {
    public KernelPlan {
        params = List.copyOf(params);
        sites = List.copyOf(sites);
    }
}
