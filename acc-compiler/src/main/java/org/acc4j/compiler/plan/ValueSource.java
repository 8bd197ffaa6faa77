package org.acc4j.compiler.plan;

/** Where the runtime finds a value of a call: an argument of the method, or a field read by reflection. */
public sealed interface ValueSource {
    /** Its name for messages. */
    String name();

    /** The {@code index}-th declared argument (0-based, not counting {@code this}). */
    record Argument(int index, String name) implements ValueSource {
    }

    /**
     * A field named in the class {@code owner} (an internal name) or inherited by it: of {@code this} when {@code
     * isStatic} is false, of its class otherwise.
     */
    record Field(String owner, String name, boolean isStatic) implements ValueSource {
    }
}
