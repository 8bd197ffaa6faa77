package org.acc4j.runtime.transfer;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One way of copying a range of a primitive Java array (not boolean[]) to or from direct memory, in the host's byte
 * order: the host's half of a staged copy, run on several cores at once.
 * <ul>
 *   <li>{@link #BUFFER}: the JDK's bulk transfer of a typed view of the buffer ({@link Slices});</li>
 *   <li>{@link #UNSAFE}: {@code Unsafe.copyMemory} between the array and the buffer's address, without the views
 *       (where the JVM has {@code sun.misc.Unsafe}).</li>
 * </ul>
 * Stateless and thread-safe.
 */
public enum HostCopy {
    BUFFER {
        @Override
        public void put(Object array, int from, int count, ByteBuffer memory, long at) {
            Slices.put(array, from, count, memory, Math.toIntExact(at));
        }

        @Override
        public void get(ByteBuffer memory, long at, Object array, int from, int count) {
            Slices.get(memory, Math.toIntExact(at), array, from, count);
        }
    },
    UNSAFE {
        @Override
        public void put(Object array, int from, int count, ByteBuffer memory, long at) {
            int width = Slices.width(array);
            long bytes = check(memory, at, array, from, count, width);
            Raw.UNSAFE.copyMemory(array, Raw.base(array) + (long) from * width, null, Raw.address(memory) + at, bytes);
        }

        @Override
        public void get(ByteBuffer memory, long at, Object array, int from, int count) {
            int width = Slices.width(array);
            long bytes = check(memory, at, array, from, count, width);
            Raw.UNSAFE.copyMemory(null, Raw.address(memory) + at, array, Raw.base(array) + (long) from * width, bytes);
        }
    };

    /** Copies {@code count} elements of {@code array} from element {@code from} into {@code memory} at byte {@code at}. */
    public abstract void put(Object array, int from, int count, ByteBuffer memory, long at);

    /** Copies {@code count} elements from {@code memory} at byte {@code at} into {@code array} from element {@code from}. */
    public abstract void get(ByteBuffer memory, long at, Object array, int from, int count);

    /** The address of direct buffer {@code memory}'s first byte (needs {@code sun.misc.Unsafe}: {@link #UNSAFE}). */
    static long address(ByteBuffer memory) {
        if (Raw.UNSAFE == null) {
            throw new IllegalStateException("no sun.misc.Unsafe: the address of a direct buffer is unknown");
        }
        return Raw.address(memory);
    }

    /** The ways this JVM offers: {@link #UNSAFE} needs {@code sun.misc.Unsafe}. */
    public static List<HostCopy> available() {
        List<HostCopy> ways = new ArrayList<>();
        ways.add(BUFFER);
        if (Raw.UNSAFE != null) {
            ways.add(UNSAFE);
        }
        return ways;
    }

    /** The bytes of the copy, once both ranges are checked: a raw copy checks nothing itself. */
    private static long check(ByteBuffer memory, long at, Object array, int from, int count, int width) {
        java.util.Objects.checkFromIndexSize(from, count, java.lang.reflect.Array.getLength(array));
        long bytes = (long) count * width;
        if (!memory.isDirect() || at < 0 || at + bytes > memory.capacity()) {
            throw new IndexOutOfBoundsException(bytes + " bytes at " + at + " of " + memory);
        }
        return bytes;
    }

    /** {@code sun.misc.Unsafe}, when the JVM has it, and the address of direct buffers. */
    private static final class Raw {
        static final sun.misc.Unsafe UNSAFE;
        static final long ADDRESS;

        static {
            sun.misc.Unsafe u = null;
            long address = -1;
            try {
                Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                u = (sun.misc.Unsafe) f.get(null);
                address = u.objectFieldOffset(Buffer.class.getDeclaredField("address"));
            } catch (ReflectiveOperationException | RuntimeException e) {
                u = null;
            }
            UNSAFE = u;
            ADDRESS = address;
        }

        static long address(ByteBuffer memory) {
            return UNSAFE.getLong(memory, ADDRESS);
        }

        static long base(Object array) {
            return UNSAFE.arrayBaseOffset(array.getClass());
        }
    }
}
