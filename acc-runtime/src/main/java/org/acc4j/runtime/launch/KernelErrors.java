package org.acc4j.runtime.launch;

import java.lang.reflect.Array;
import org.acc4j.compiler.plan.Fault;
import org.acc4j.compiler.plan.LaunchPlan;

/** The Java exception a kernel's error record stands for: Java's own type and message, as the host run throws. */
final class KernelErrors {
    private KernelErrors() {
    }

    /**
     * The exception for error {@code code} (from 1) with its {@code detail}, raised by the variant of {@code plan}
     * that ran (with or without the checks the host proved), over the call's {@code arrays}.
     */
    static RuntimeException javaException(LaunchPlan plan, boolean proven, int code, long detail, Object[] arrays) {
        Fault site = plan.fault(proven, code);
        if (site.divisionByZero()) {
            return new ArithmeticException("/ by zero");
        }
        // a row's fault: the detail holds the row index high, the column index low
        long index = site.row() ? (int) detail : detail;
        int length = -1;
        if (site.arrayIndex() >= 0) {
            Object array = arrays[site.arrayIndex()];
            length = site.row() ? rowLength(array, (int) (detail >>> 32)) : Array.getLength(array);
        }
        return new ArrayIndexOutOfBoundsException("Index " + index + " out of bounds for length " + length);
    }

    /** The length of row {@code row} of a rank-2 array, -1 when there is no such row. */
    private static int rowLength(Object array, int row) {
        if (array instanceof Object[] rows && row >= 0 && row < rows.length && rows[row] != null) {
            return Array.getLength(rows[row]);
        }
        return -1;
    }
}
