package org.acc4j.compiler.plan;

/** Where the runtime finds a value of a call: an argument of the method, or a field read by reflection. */
public sealed interface ValueSource {
    /** Its name for messages. */
    String name();

    /** The {@code index}-th declared argument (0-based, not counting {@code this}). */
    record Argument(int index, String name) implements ValueSource {
    }

    /**
     * A field named in the class {@code owner} (an internal name) or inherited by it: of its class when {@code
     * isStatic}, else of {@code this} when {@code holder} is -1, else of the object the {@code holder}-th argument
     * refers to (named {@code holderName}).
     */
    record Field(String owner, String name, boolean isStatic, int holder, String holderName) implements ValueSource {
        /** A static field, or a field of {@code this}. */
        public Field(String owner, String name, boolean isStatic) {
            this(owner, name, isStatic, -1, null);
        }

        /** The object whose field this is, for {@code self} and {@code args} of a call (null for a static field). */
        public Object target(Object self, Object[] args) {
            return isStatic ? null : holder < 0 ? self : args[holder];
        }
    }

    /**
     * An array the runtime makes at the launch, not read from the call: a coloured loop's colour order
     * ({@link LaunchPlan#coloured}).
     */
    record Made(String name) implements ValueSource {
    }
}
