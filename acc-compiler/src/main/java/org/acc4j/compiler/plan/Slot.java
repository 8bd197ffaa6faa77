package org.acc4j.compiler.plan;

/**
 * One parameter of a kernel, in order, as the runtime fills it at a launch. Arrays are named by their position in the
 * method's {@link MethodLaunch#arrays()}, that is in the call's bound array list.
 */
public sealed interface Slot {
    /** The device address of the error record (a u32 code, then an s64 detail at offset 8). */
    record ErrorRecord() implements Slot {
    }

    /** The device address of an array's buffer; for a rank-2 array, of its row table. */
    record ArrayData(int array) implements Slot {
    }

    /** An array's length (s32); for a rank-2 array, its row count. */
    record ArrayLength(int array) implements Slot {
    }

    /**
     * How a rank-2 array's rows lie now: the device address of their block ({@code START}, u64) and their length
     * ({@code LENGTH}, s32) when the rows are one block, else 0 and -1.
     */
    record RowBlock(int array, boolean start) implements Slot {
    }

    /** A scalar read at the call: an argument or a primitive field, boxed as Java boxes it. */
    record Scalar(ValueSource source, ScalarType type) implements Slot {
    }

    /** A value the host computed before the launch (from an earlier loop's reduction): {@link LaunchPlan#hostValue}. */
    record HostValue(int index, ScalarType type) implements Slot {
    }

    /** log2 of the lanes per row of a row-group kernel (u32), {@link LaunchPlan#lanes}. */
    record RowLanes() implements Slot {
    }

    /** The device address of one part of reduction {@code index}'s scratch. */
    record Reduction(int index, ReductionPart part) implements Slot {
    }

    /** The device address of one part of a scan's state. */
    record Scan(ScanPart part) implements Slot {
    }

    /** A reduction's result, its block counter (0 between launches) and its per-block partial values. */
    enum ReductionPart { RESULT, COUNTER, PARTIALS }

    /**
     * A scan's ticket counter (0 between launches), its tile flags (cleared before each launch), its tiles' aggregates
     * and their inclusive prefixes.
     */
    enum ScanPart { TICKET, FLAGS, AGGREGATES, INCLUSIVE }
}
