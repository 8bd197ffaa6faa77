package org.acc4j.runtime.data;

/**
 * Checks and describes the host arrays the data layer works with: one-dimensional arrays of a
 * primitive type. Stateless.
 */
public final class HostArrays {

    private HostArrays() {
    }

    /**
     * Returns {@code array} when it is a one-dimensional primitive array.
     *
     * @throws IllegalArgumentException for null, non-arrays, object arrays and arrays of arrays
     */
    public static Object require(Object array) {
        if (array == null) {
            throw new IllegalArgumentException("expected a one-dimensional primitive array but got null");
        }
        Class<?> type = array.getClass();
        if (!type.isArray() || !type.getComponentType().isPrimitive()) {
            throw new IllegalArgumentException("expected a one-dimensional primitive array but got "
                    + type.getTypeName() + (type.isArray() ? " (arrays of objects or of arrays are not supported)" : ""));
        }
        return array;
    }

    /** Size of one element in bytes (boolean counts as 1). */
    public static int elementBytes(Object array) {
        Class<?> component = require(array).getClass().getComponentType();
        if (component == long.class || component == double.class) {
            return 8;
        }
        if (component == int.class || component == float.class) {
            return 4;
        }
        if (component == short.class || component == char.class) {
            return 2;
        }
        // byte and boolean
        return 1;
    }

    /** Number of elements. */
    public static int length(Object array) {
        return java.lang.reflect.Array.getLength(require(array));
    }

    /** Size of the whole array's data in bytes. */
    public static long byteSize(Object array) {
        return (long) elementBytes(array) * length(array);
    }

    /** A short description for messages, such as {@code double[1048576]}. */
    public static String describe(Object array) {
        return require(array).getClass().getComponentType().getName() + "[" + length(array) + "]";
    }
}
