package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.Type;

/** How a scalar kernel parameter is passed: Java's computational types ({@code PRED} is never a parameter). */
public enum ScalarType {
    I32, I64, F32, F64, PRED;

    static ScalarType of(Type t) {
        return valueOf(t.name());
    }

    /** A scalar argument as a kernel parameter wants it: booleans, chars, bytes and shorts widen to int, as in the JVM. */
    public static Object widen(Object v) {
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof Character c) {
            return (int) c;
        }
        if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).intValue();
        }
        return v;
    }
}
