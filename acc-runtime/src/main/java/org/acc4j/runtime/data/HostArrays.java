package org.acc4j.runtime.data;

import java.lang.reflect.Array;

/**
 * Checks and describes the host arrays the data layer works with: one-dimensional arrays of a primitive type
 * (rank 1, such as {@code double[]}) and arrays of them (rank 2, such as {@code double[][]}, rectangular or
 * jagged, whose rows may be null). Device buffers are always for rank-1 arrays; a rank-2 array goes to the
 * device as its rows plus a row table (see {@link PresentTable}). Stateless.
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

    /**
     * Returns {@code array} when it is a primitive array of rank 1 or 2 ({@code double[]} or {@code double[][]}).
     *
     * @throws IllegalArgumentException for null, non-arrays, object arrays and arrays of three or more dimensions
     */
    public static Object requireData(Object array) {
        if (array == null) {
            throw new IllegalArgumentException("expected a primitive array of one or two dimensions but got null");
        }
        if (!isDataType(array.getClass())) {
            throw new IllegalArgumentException("expected a primitive array of one or two dimensions but got "
                    + array.getClass().getTypeName());
        }
        return array;
    }

    /** Whether {@code array} is a one-dimensional primitive array such as {@code double[]}. */
    public static boolean isRank1(Object array) {
        return array != null && isRank1Type(array.getClass());
    }

    /** Whether {@code array} is an array of one-dimensional primitive arrays such as {@code double[][]}. */
    public static boolean isRank2(Object array) {
        return array != null && isRank2Type(array.getClass());
    }

    /** Whether values of {@code type} are arrays the data layer takes: {@code double[]} or {@code double[][]}. */
    public static boolean isDataType(Class<?> type) {
        return isRank1Type(type) || isRank2Type(type);
    }

    private static boolean isRank1Type(Class<?> type) {
        return type.isArray() && type.getComponentType().isPrimitive();
    }

    private static boolean isRank2Type(Class<?> type) {
        return type.isArray() && isRank1Type(type.getComponentType());
    }

    /**
     * Size of one element in bytes (boolean counts as 1); for a rank-2 array, of one element of a row.
     *
     * @throws IllegalArgumentException for anything but a primitive array of rank 1 or 2
     */
    public static int elementBytes(Object array) {
        Class<?> component = isRank2(array) ? array.getClass().getComponentType().getComponentType()
                : require(array).getClass().getComponentType();
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
        return Array.getLength(require(array));
    }

    /** Size of the whole array's data in bytes. */
    public static long byteSize(Object array) {
        return (long) elementBytes(array) * length(array);
    }

    /**
     * Number of rows of a rank-2 array.
     *
     * @throws IllegalArgumentException when {@code array} is not a rank-2 primitive array
     */
    public static int rows(Object array) {
        return Array.getLength(requireRank2(array));
    }

    /**
     * Row {@code index} of a rank-2 array, possibly null.
     *
     * @throws IllegalArgumentException when {@code array} is not a rank-2 primitive array
     * @throws ArrayIndexOutOfBoundsException when there is no such row
     */
    public static Object row(Object array, int index) {
        return ((Object[]) requireRank2(array))[index];
    }

    /** The index of the first null row of a rank-2 array; -1 when it has none or is of rank 1. */
    public static int nullRow(Object array) {
        if (!isRank2(array)) {
            return -1;
        }
        Object[] rows = (Object[]) array;
        for (int i = 0; i < rows.length; i++) {
            if (rows[i] == null) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A short description for messages: {@code double[1048576]} for rank 1; {@code double[37][41]} for a
     * rectangular rank-2 array, {@code double[37][]} for a jagged one or one with a null row.
     *
     * @throws IllegalArgumentException for anything but a primitive array of rank 1 or 2
     */
    public static String describe(Object array) {
        if (!isRank2(array)) {
            return require(array).getClass().getComponentType().getName() + "[" + length(array) + "]";
        }
        Object[] rows = (Object[]) array;
        String element = array.getClass().getComponentType().getComponentType().getName();
        int columns = rows.length == 0 || rows[0] == null ? -1 : Array.getLength(rows[0]);
        for (Object row : rows) {
            if (row == null || Array.getLength(row) != columns) {
                columns = -1;
                break;
            }
        }
        return element + "[" + rows.length + "][" + (columns < 0 ? "" : Integer.toString(columns)) + "]";
    }

    private static Object requireRank2(Object array) {
        if (!isRank2(array)) {
            throw new IllegalArgumentException("expected a two-dimensional primitive array but got "
                    + (array == null ? "null" : array.getClass().getTypeName()));
        }
        return array;
    }
}
