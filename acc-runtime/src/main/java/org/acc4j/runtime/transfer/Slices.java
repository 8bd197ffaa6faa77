package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies a range of a primitive Java array to or from host memory seen as a {@link ByteBuffer}, in the host's byte
 * order (the device's). Takes every primitive array type but boolean[]; each copy is one bulk transfer of the JDK.
 * Stateless.
 */
final class Slices {

    private Slices() {
    }

    /**
     * Bytes per element.
     *
     * @throws IllegalArgumentException for anything but an int, long, float, double, byte, short or char array
     */
    static int width(Object array) {
        if (array instanceof double[] || array instanceof long[]) {
            return 8;
        }
        if (array instanceof float[] || array instanceof int[]) {
            return 4;
        }
        if (array instanceof short[] || array instanceof char[]) {
            return 2;
        }
        if (array instanceof byte[]) {
            return 1;
        }
        throw new IllegalArgumentException("staged copies take int, long, float, double, byte, short or char arrays,"
                + " not " + (array == null ? "null" : array.getClass().getTypeName()));
    }

    /** Copies {@code count} elements of {@code array} from element {@code from} into {@code memory} at byte {@code at}. */
    static void put(Object array, int from, int count, ByteBuffer memory, int at) {
        ByteBuffer b = memory.slice(at, count * width(array)).order(ByteOrder.nativeOrder());
        if (array instanceof double[] a) {
            b.asDoubleBuffer().put(a, from, count);
        } else if (array instanceof long[] a) {
            b.asLongBuffer().put(a, from, count);
        } else if (array instanceof float[] a) {
            b.asFloatBuffer().put(a, from, count);
        } else if (array instanceof int[] a) {
            b.asIntBuffer().put(a, from, count);
        } else if (array instanceof short[] a) {
            b.asShortBuffer().put(a, from, count);
        } else if (array instanceof char[] a) {
            b.asCharBuffer().put(a, from, count);
        } else {
            b.put((byte[]) array, from, count);
        }
    }

    /** Copies {@code count} elements from {@code memory} at byte {@code at} into {@code array} from element {@code from}. */
    static void get(ByteBuffer memory, int at, Object array, int from, int count) {
        ByteBuffer b = memory.slice(at, count * width(array)).order(ByteOrder.nativeOrder());
        if (array instanceof double[] a) {
            b.asDoubleBuffer().get(a, from, count);
        } else if (array instanceof long[] a) {
            b.asLongBuffer().get(a, from, count);
        } else if (array instanceof float[] a) {
            b.asFloatBuffer().get(a, from, count);
        } else if (array instanceof int[] a) {
            b.asIntBuffer().get(a, from, count);
        } else if (array instanceof short[] a) {
            b.asShortBuffer().get(a, from, count);
        } else if (array instanceof char[] a) {
            b.asCharBuffer().get(a, from, count);
        } else {
            b.get((byte[]) array, from, count);
        }
    }
}
