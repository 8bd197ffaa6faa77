package org.acc4j.runtime.launch;

import java.lang.reflect.Array;
import java.util.Map;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.ErrorSite;

/** The Java exception a kernel's error record stands for: Java's own type and message, as the host run throws. */
final class KernelErrors {
    private KernelErrors() {
    }

    /**
     * The exception for error {@code code} (from 1) with its {@code detail}, raised by the variant of {@code plan}
     * that ran (with or without the checks the host proved), over the call's {@code arrays}.
     */
    static RuntimeException javaException(KernelPlan plan, boolean proven, int code, long detail,
                                          Map<ArrayRef, Object> arrays) {
        ErrorSite site = (proven ? plan.unchecked().sites() : plan.sites()).get(code - 1);
        if (site.kind() == ErrorSite.Kind.DIVISION_BY_ZERO) {
            return new ArithmeticException("/ by zero");
        }
        // "a[]" names a row of the rank-2 array a: the detail holds the row index high, the column index low
        boolean row = site.array().endsWith("[]");
        String name = row ? site.array().substring(0, site.array().length() - 2) : site.array();
        long index = row ? (int) detail : detail;
        int length = -1;
        for (Map.Entry<ArrayRef, Object> e : arrays.entrySet()) {
            if (e.getKey().name().equals(name)) {
                length = row ? rowLength(e.getValue(), (int) (detail >>> 32)) : Array.getLength(e.getValue());
            }
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
