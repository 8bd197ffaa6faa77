package org.acc4j.runtime.cuda;

import java.nio.ByteBuffer;
import jcuda.Pointer;

/**
 * A launch's parameters kept in {@link MappedMemory} and reused from call to call: a value slot of 8 bytes per
 * parameter, and the {@code void** kernelParams} table pointing at them, written once. A call writes its values into
 * the slots and launches with the same table ({@link Function#launch(int[], int[], LaunchArgs, Stream)}), so that
 * nothing is allocated per call and JCuda hands the driver a plain address. The driver copies the values at the
 * launch: the slots may be rewritten as soon as it returns.
 *
 * <p>Parameters are set by index, in the order (and with the widths) of the kernel's PTX {@code .param} list. Not
 * thread-safe: one launch at a time uses it (the runtime launches under the device lock).
 */
public final class LaunchArgs {
    /** Bytes of mapped memory {@code count} parameters take. */
    public static long bytes(int count) {
        return 16L * Math.max(1, count);
    }

    private final ByteBuffer view;
    private final int values;
    private final int count;
    private final Pointer table;

    /**
     * Lays out {@code count} parameters at byte {@code offset} of {@code memory} (8-byte aligned, {@link #bytes}
     * long): the table first, then the values.
     */
    public LaunchArgs(MappedMemory memory, int offset, int count) {
        if (offset % 8 != 0 || offset < 0 || offset + bytes(count) > memory.bytes()) {
            throw new IllegalArgumentException("no room for " + count + " launch parameters at byte " + offset + " of "
                    + memory.bytes());
        }
        this.view = memory.view();
        this.count = count;
        this.values = offset + 8 * count;
        for (int i = 0; i < count; i++) {
            view.putLong(offset + 8 * i, memory.hostAddress(values + 8L * i));
        }
        this.table = count == 0 ? null : memory.pointer(offset);
    }

    public int count() {
        return count;
    }

    public void putPointer(int index, long address) {
        view.putLong(slot(index), address);
    }

    public void putInt(int index, int value) {
        view.putInt(slot(index), value);
    }

    public void putLong(int index, long value) {
        view.putLong(slot(index), value);
    }

    public void putFloat(int index, float value) {
        view.putFloat(slot(index), value);
    }

    public void putDouble(int index, double value) {
        view.putDouble(slot(index), value);
    }

    private int slot(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("parameter " + index + " of " + count);
        }
        return values + 8 * index;
    }

    /** The {@code kernelParams} pointer; null when there are no parameters. */
    Pointer table() {
        return table;
    }
}
