package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.DataClause;

/**
 * A data clause of a compiled method or of a {@code @Data} region, for one array: OpenACC's kind, explicit (written by
 * the user) or implicit (from how the method uses the array).
 *
 * @param array the array's position in the method's {@link MethodLaunch#arrays()}, or -1 in a {@code @Data} region
 */
public record DataUse(int array, String name, ValueSource source, int dims, Kind kind, boolean explicit) {
    /** OpenACC's data clauses. */
    public enum Kind { COPYIN, COPYOUT, COPY, CREATE, PRESENT }

    static DataUse of(DataClause c, int array) {
        return new DataUse(array, c.array().name(), Sources.of(c.array().source()), c.array().dims(),
                Kind.valueOf(c.kind().name()), c.explicit());
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + "(" + name + ")" + (explicit ? "" : " implicit");
    }
}
