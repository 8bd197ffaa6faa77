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
     * refers to (named {@code holderName}); with a {@code path}, of the object reached from there through those
     * fields ({@code b.inner.u}).
     */
    record Field(String owner, String name, boolean isStatic, int holder, String holderName,
            java.util.List<Hop> path) implements ValueSource {
        public Field {
            path = java.util.List.copyOf(path);
        }

        /** A field of its class, of {@code this} or of the {@code holder}-th argument's object. */
        public Field(String owner, String name, boolean isStatic, int holder, String holderName) {
            this(owner, name, isStatic, holder, holderName, java.util.List.of());
        }

        /** A static field, or a field of {@code this}. */
        public Field(String owner, String name, boolean isStatic) {
            this(owner, name, isStatic, -1, null);
        }

        /**
         * The object the {@link #path} starts from, for {@code self} and {@code args} of a call: null for a static
         * field or a path that starts at one; with an empty path, the object whose field this is.
         */
        public Object target(Object self, Object[] args) {
            if (isStatic || !path.isEmpty() && path.get(0).isStatic()) {
                return null;
            }
            return holder < 0 ? self : args[holder];
        }
    }

    /**
     * A field holding an object, read on the way to a {@link Field} ({@code inner} of {@code b.inner.u}): of the object
     * reached so far, or of its class {@code owner} (an internal name) when {@code isStatic}, then the first of a path.
     */
    record Hop(String owner, String name, boolean isStatic) {
    }

    /**
     * The primitive field {@code field} of {@code owner} (an internal name) of every element of the array of objects
     * that {@code objects} gives ({@code p[].x}), which the runtime gathers into a primitive array of that array's
     * length at each launch, and scatters back after a launch that wrote it; with a null {@code field}, only that
     * array's length is used. Read as a value on the host, it is the array of objects itself.
     */
    record Gathered(ValueSource objects, String owner, String field, String descriptor, String name)
            implements ValueSource {
    }

    /**
     * An array the runtime makes at the launch, not read from the call: a coloured loop's colour order
     * ({@link LaunchPlan#coloured}).
     */
    record Made(String name) implements ValueSource {
    }
}
