package org.acc4j.compiler.ir;

/**
 * A primitive array the region uses, named by where the runtime finds it at a call: a parameter of the method,
 * or a field. {@code elem} is how it stores its elements ({@code byte[]} holds bytes that load as {@code int}s);
 * {@code dims} is 1 for {@code double[]} and 2 for {@code double[][]} (rectangular or jagged).
 *
 * <p>On the device a two-dimensional array is a row table: one 16-byte entry per row, holding the row's
 * device address (u64 at offset 0) and its length (s32 at offset 8). Its {@link KernelParam.ArrayData} is the
 * table's address and its {@link KernelParam.ArrayLength} the number of rows. After the last row's entry (when there
 * is a row) a trailer of the same size says how the rows lie: when they are one block, row {@code i} at byte {@code i
 * * rowLength * elementBytes} from the block's start, the trailer holds that start (u64) and the row length (s32);
 * otherwise it holds 0 and -1. The kernel is given the same two values as parameters at each launch ({@link
 * KernelParam.RowBlock}), so that it computes a row's address of a block as it indexes a flat array, with no load
 * first; otherwise it loads each row's entry (preloaded before a loop that does not change the row).
 */
public record ArrayRef(Source source, Elem elem, int dims) {
    /** Bytes per row-table entry. */
    public static final int ROW_ENTRY_BYTES = 16;

    public ArrayRef {
        if (dims != 1 && dims != 2) {
            throw new IllegalArgumentException("arrays of 1 or 2 dimensions, not " + dims);
        }
    }

    /** A one-dimensional array. */
    public ArrayRef(Source source, Elem elem) {
        this(source, elem, 1);
    }

    /** The type an element computes as once loaded ({@link Type#I32} for a {@code byte[]}). */
    public Type element() {
        return elem.type();
    }

    /** The array's Java type, as in {@code double[][]}. */
    public String javaType() {
        return elem.javaName() + "[]".repeat(dims);
    }

    /** Where an array or a scalar comes from when the method is called. */
    public sealed interface Source {
        /** Its name for messages and for {@code @Data} clauses. */
        String name();
    }

    /** The {@code index}-th declared parameter of the method (0-based, not counting {@code this}). */
    public record Parameter(int index, String name) implements Source {
    }

    /**
     * An array allocated in a loop body with a size known at compile time ({@code new double[8]}, or a clone of
     * such an array): private to the iteration, replaced by scalars before the nest is compiled
     * ({@code pass.PrivateArrays}). {@code id} tells allocations apart; its elements become the locals at slots
     * {@code base} to {@code base + length - 1}, and the slots {@code base + 32} and {@code base + 33} hold the
     * subscript and the value of a store at a subscript known only at run time.
     */
    public record Private(String name, int id, int length, int base) implements Source {
    }

    /**
     * The order in which a coloured region runs its iterations, colour by colour ({@link ColourPlan#order}): made by
     * the runtime at the launch, not read from the call.
     */
    public record ColourOrder(String name, int region) implements Source {
    }

    /**
     * A field: of its class when {@code isStatic}; else of {@code this} when {@code holder} is -1, or of the object
     * that the method's {@code holder}-th parameter refers to ({@code b.data} of a parameter {@code b}), read when
     * the method is called. {@code name} is the field's name, prefixed with the parameter's ({@code "b.data"}) for a
     * parameter's field, so that {@code this.data} and {@code b.data} stay apart; {@link #field()} is the field's own
     * name. A non-empty {@code path} reaches the object through fields holding objects first ({@code b.inner.u},
     * {@code this.grid.u}, {@code Config.grid.u}), each read at the call as well; the name then spells the path.
     */
    public record Field(String owner, String name, String descriptor, boolean isStatic, int holder, java.util.List<Hop> path)
            implements Source {
        public Field {
            path = java.util.List.copyOf(path);
            if (holder < -1 || holder >= 0 && isStatic || isStatic && !path.isEmpty()
                    || !path.isEmpty() && path.get(0).isStatic() && holder >= 0) {
                throw new IllegalArgumentException("the field " + name + " of parameter " + holder + " through " + path);
            }
        }

        /** A static field, a field of {@code this}, or of the {@code holder}-th parameter's object. */
        public Field(String owner, String name, String descriptor, boolean isStatic, int holder) {
            this(owner, name, descriptor, isStatic, holder, java.util.List.of());
        }

        /** A static field, or a field of {@code this}. */
        public Field(String owner, String name, String descriptor, boolean isStatic) {
            this(owner, name, descriptor, isStatic, -1);
        }

        /** The field's own name, without its parameter's or the fields it is reached through. */
        public String field() {
            return holder < 0 && path.isEmpty() ? name : name.substring(name.lastIndexOf('.') + 1);
        }
    }

    /**
     * The primitive field {@code field} (declared in or inherited by {@code owner}, of type {@code descriptor}) of
     * each element of the one-dimensional array of objects that {@code objects} names ({@code p[i].x} of a {@code
     * Particle[] p}): the kernels see it as a primitive array of the same length, {@code p[].x}, which the runtime
     * makes from the elements at each launch and writes back into them after a launch that wrote it. With a null
     * {@code field} it stands for the objects' array alone, whose length a nest reads ({@code p.length}): its
     * elements are never read.
     */
    public record Gathered(Source objects, String owner, String field, String descriptor) implements Source {
        /** The name of the length alone of {@code objects}' array. */
        public static Gathered length(Source objects) {
            return new Gathered(objects, null, null, "Z");
        }

        @Override
        public String name() {
            return objects.name() + "[]" + (field == null ? "" : "." + field);
        }
    }

    /**
     * A field holding an object, read on the way to another field ({@code inner} of {@code b.inner.u}): of the
     * object reached so far, or of its class {@code owner} when {@code isStatic} (then the first of a path).
     */
    public record Hop(String owner, String name, boolean isStatic) {
    }

    public String name() {
        return source.name();
    }

    @Override
    public String toString() {
        return source.name();
    }
}
