package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.ArrayRef;

/** The layout the compiler's kernels expect of the runtime's device memory. */
public final class Abi {
    /** Bytes of one entry of a rank-2 array's row table on the device, as the kernels index it. */
    public static final int ROW_ENTRY_BYTES = ArrayRef.ROW_ENTRY_BYTES;

    private Abi() {
    }
}
