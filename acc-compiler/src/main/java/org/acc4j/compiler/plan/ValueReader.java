package org.acc4j.compiler.plan;

/** Reads the values a plan names at a call: arguments from the call's arguments, fields from {@code self} or its class. */
@FunctionalInterface
public interface ValueReader {
    Object value(ValueSource source, Object self, Object[] args);
}
