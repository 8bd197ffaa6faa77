package org.acc4j.runtime.data;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The present counts of the multicore target, where the device's memory is the host's: data clauses and the {@code
 * Acc} data routines move nothing, but each array keeps OpenACC's dynamic and structured reference counts, so that
 * {@code Acc.isPresent} says what it says on a GPU. A two-dimensional array counts with its rows, as in {@link
 * PresentTable}. Thread-safe.
 */
public final class SharedPresence {
    /** Per array (by identity): {dynamic, structured}. */
    private final Map<Object, long[]> counts = new IdentityHashMap<>();

    /** {@code copyin}, {@code create} ({@code structured} false) or the entry of a data region (true). */
    public synchronized void enter(Object array, boolean structured) {
        for (Object a : withRows(array)) {
            counts.computeIfAbsent(a, k -> new long[2])[structured ? 1 : 0]++;
        }
    }

    /**
     * {@code copyout}, {@code delete} ({@code structured} false, {@code finalize} for their finalize forms, which zero
     * the dynamic count) or the exit of a data region (true). An array not present is left alone.
     */
    public synchronized void exit(Object array, boolean structured, boolean finalize) {
        for (Object a : withRows(array)) {
            long[] c = counts.get(a);
            if (c == null) {
                continue;
            }
            int k = structured ? 1 : 0;
            c[k] = finalize ? 0 : Math.max(0, c[k] - 1);
            if (c[0] == 0 && c[1] == 0) {
                counts.remove(a);
            }
        }
    }

    /** Whether either count of {@code array} is above zero. */
    public synchronized boolean isPresent(Object array) {
        return counts.containsKey(array);
    }

    private static Object[] withRows(Object array) {
        if (array instanceof Object[] rows && HostArrays.isDataType(array.getClass())) {
            Object[] all = new Object[rows.length + 1];
            all[0] = array;
            System.arraycopy(rows, 0, all, 1, rows.length);
            return java.util.Arrays.stream(all).filter(java.util.Objects::nonNull).toArray();
        }
        return new Object[] {array};
    }
}
