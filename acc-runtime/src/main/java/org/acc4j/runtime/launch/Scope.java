package org.acc4j.runtime.launch;

import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.PresentTable;

/**
 * The data of a {@code @Kernels} call around its launch sites: arrays stay on the device from a call's first use
 * to its end, and move only where host code needs them.
 */
public interface Scope {
    /**
     * Before a site's clause for {@code array} (named {@code name} in the nest) is entered: the scope makes it
     * present, or current on the device.
     */
    void adopt(Object array, String name, Clause clause);

    /** After a site's kernels all ran: they may have written {@code array}. */
    void written(Object array);

    /**
     * As {@link #adopt} with {@link Clause#COPY}, for a {@code T[][]} that the site's kernels only write, every
     * element of rows {@code [firstRow, endRow)} and columns {@code [firstColumn, endColumn)}: a scope that can
     * enters it with that window ({@link PresentTable#enterWritten}) and returns true; false when it did nothing
     * (the caller then adopts it plainly).
     */
    default boolean adoptWritten(Object array, String name, long firstRow, long endRow, long firstColumn,
                                 long endColumn) {
        return false;
    }
}
