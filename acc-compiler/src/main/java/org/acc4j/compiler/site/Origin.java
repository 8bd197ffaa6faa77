package org.acc4j.compiler.site;

/**
 * Where a reference that host code uses came from, relative to a point of the method (a site's exit, a nest's
 * entry, or the method's start), in a form the runtime can resolve with the values it is given there.
 */
public sealed interface Origin {
    /** The value local {@code slot} held at that point; the runtime receives it as value {@code value}. */
    record Local(int slot, int value, String name) implements Origin {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A field of the object in local {@code baseSlot} (value {@code value}), or a static field when {@code baseSlot < 0}. */
    record Field(int baseSlot, int value, String owner, String name, String descriptor) implements Origin {
        public boolean isStatic() {
            return baseSlot < 0;
        }

        @Override
        public String toString() {
            return (isStatic() ? owner.substring(owner.lastIndexOf('/') + 1) + "." : baseSlot == 0 ? "this." : "") + name;
        }
    }

    /** Every static field of a class (a call may read them). */
    record Statics(String owner) implements Origin {
        @Override
        public String toString() {
            return "the static fields of " + owner.replace('/', '.');
        }
    }

    /** A reference the analysis cannot name (a call's result, a field of an unknown object): any present array. */
    record Any() implements Origin {
        @Override
        public String toString() {
            return "any array";
        }
    }
}
