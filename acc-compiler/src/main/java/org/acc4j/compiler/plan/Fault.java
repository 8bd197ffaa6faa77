package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.ErrorSite;

/**
 * A place in a kernel that raises a Java exception, as the runtime reports it: an integer division by zero, or an
 * access out of bounds of the array {@code array} (a row of it when {@code row}: the error record's detail then holds
 * the row index high and the column index low).
 *
 * @param arrayIndex the array's position in the method's {@link MethodLaunch#arrays()}, or -1 when it is not one
 */
public record Fault(boolean divisionByZero, String array, boolean row, int arrayIndex, int line) {
    static Fault of(ErrorSite s, java.util.List<ArrayUse> arrays) {
        if (s.kind() == ErrorSite.Kind.DIVISION_BY_ZERO) {
            return new Fault(true, s.array(), false, -1, s.line());
        }
        boolean row = s.array() != null && s.array().endsWith("[]");
        String name = row ? s.array().substring(0, s.array().length() - 2) : s.array();
        int index = -1;
        for (ArrayUse a : arrays) {
            if (a.name().equals(name)) {
                index = a.index();
            }
        }
        return new Fault(false, name, row, index, s.line());
    }
}
