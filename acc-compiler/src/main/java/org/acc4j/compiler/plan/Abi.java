package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Reduction;

/** The layout the compiler's kernels expect of the runtime's device memory. */
public final class Abi {
    /** Bytes of one entry of a rank-2 array's row table on the device, as the kernels index it. */
    public static final int ROW_ENTRY_BYTES = ArrayRef.ROW_ENTRY_BYTES;
    /** Reductions one kernel may have (the compiler refuses more): the reduction scratch holds this many counters. */
    public static final int MAX_REDUCTIONS = Reduction.MAX_PER_REGION;

    private Abi() {
    }
}
