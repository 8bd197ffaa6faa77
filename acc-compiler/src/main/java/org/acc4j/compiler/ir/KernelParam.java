package org.acc4j.compiler.ir;

/** One parameter of a generated kernel, in order; the runtime binds each from the call's arguments. */
public sealed interface KernelParam {
    /** The device address of the error record (a u32 code, then an s64 detail at offset 8). */
    record ErrorRecord() implements KernelParam {
    }

    /** The device address of an array's buffer. */
    record ArrayData(ArrayRef array, boolean read, boolean written) implements KernelParam {
    }

    /** An array's length (s32). */
    record ArrayLength(ArrayRef array) implements KernelParam {
    }

    /**
     * How a two-dimensional array's rows lie, given at each launch so that a kernel indexes rows that are one block
     * as it indexes a flat array, with no load before its first element: the block's device address ({@code START},
     * u64) and the row length ({@code LENGTH}, s32) when the row table lists one block's rows in order, else 0 and
     * -1 (the kernel then loads each row's address from the table).
     */
    record RowBlock(ArrayRef array, Part part) implements KernelParam {
        public enum Part { START, LENGTH }
    }

    /** A scalar read at the call: a parameter of the method or a primitive field. */
    record Scalar(ArrayRef.Source source, Type type) implements KernelParam {
    }

    /** A host value: a local the host computed from an earlier region's reduction (see {@link Region#hostVars}). */
    record HostValue(Var var) implements KernelParam {
    }

    /**
     * The device address of one part of reduction {@code index}'s scratch: its result, its block counter (a u32
     * the last block resets to 0) or its per-block partial values (one element per block of the grid).
     */
    record ReductionSlot(int index, Reduction reduction, Part part) implements KernelParam {
        public enum Part { RESULT, COUNTER, PARTIALS }
    }

    /**
     * log2 of the lanes per row of a {@link RowGroup} kernel (u32), chosen at each launch from the row offsets by
     * {@link RowGroup#choose}.
     */
    record RowLanes(RowGroup group) implements KernelParam {
    }

    /**
     * The device address of one part of a scan's state ({@link Region#scan()}, {@link org.acc4j.templates.Scans}):
     * its ticket counter (a u32 that is 0 between launches), its tile flags (a u32 per tile, cleared by the runtime
     * before each launch), its tiles' aggregates and their inclusive prefixes (an element per tile each).
     */
    record ScanSlot(Part part) implements KernelParam {
        public enum Part { TICKET, FLAGS, AGGREGATES, INCLUSIVE }
    }
}
