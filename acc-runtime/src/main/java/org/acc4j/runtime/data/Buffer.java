package org.acc4j.runtime.data;

/**
 * Device memory handed out by {@link DeviceMemory}: sized for one host array ({@link DeviceMemory#allocate}),
 * or raw bytes such as a row table ({@link DeviceMemory#allocateRaw}).
 *
 * <p>Transfers always move the whole buffer; the array passed to {@link #upload} and {@link #download} must
 * have the type and length of the one the buffer was allocated for, and a raw buffer takes no host array
 * there. {@link #writeLongs} fills any buffer with raw 64-bit words. After {@link #close()} (idempotent) every
 * other call but {@link #bytes()} throws {@link IllegalStateException}.
 */
public interface Buffer extends AutoCloseable {

    /** Size in bytes. */
    long bytes();

    /** The device address of the first byte, as a kernel sees it; 0 for an empty buffer. */
    long address();

    /** Copies the host array to the device. */
    void upload(Object hostArray);

    /** Copies the device data into the host array. */
    void download(Object hostArray);

    /**
     * Copies a whole host array (one-dimensional, not a {@code boolean[]}) into this raw buffer from byte {@code
     * offset}: one row of a two-dimensional array laid out in one block.
     *
     * @throws IllegalArgumentException when the array does not fit there
     * @throws UnsupportedOperationException for memory that lays out no blocks
     */
    default void uploadAt(long offset, Object hostArray) {
        throw new UnsupportedOperationException("no copies at an offset into " + this);
    }

    /**
     * Copies elements {@code [from, to)} of {@code hostArray} (one-dimensional, not a {@code boolean[]}, the array
     * this buffer holds) into the same places of this buffer; the others stay as they are.
     */
    default void uploadRange(Object hostArray, int from, int to) {
        Object part = java.lang.reflect.Array.newInstance(hostArray.getClass().getComponentType(), to - from);
        System.arraycopy(hostArray, from, part, 0, to - from);
        uploadAt((long) from * HostArrays.elementBytes(hostArray), part);
    }

    /** Copies the bytes of this raw buffer from {@code offset} into a whole host array; see {@link #uploadAt}. */
    default void downloadAt(long offset, Object hostArray) {
        throw new UnsupportedOperationException("no copies at an offset into " + this);
    }

    /**
     * Copies {@code rows} (arrays of one type and length) into this raw buffer one after the other from byte 0,
     * row {@code i} at {@code i * rowBytes}. The default copies row by row; memory that can pipeline copies
     * moves them as one.
     */
    default void uploadRows(Object[] rows) {
        long at = 0;
        for (Object row : rows) {
            uploadAt(at, row);
            at += HostArrays.byteSize(row);
        }
    }

    /** Copies this raw buffer back into {@code rows}, laid out as {@link #uploadRows} lays them out. */
    default void downloadRows(Object[] rows) {
        long at = 0;
        for (Object row : rows) {
            downloadAt(at, row);
            at += HostArrays.byteSize(row);
        }
    }

    /**
     * Copies rows {@code [firstRow, endRow)} of this raw buffer, laid out as {@link #uploadRows} lays out {@code
     * rows}, back into those rows, writing only their columns {@code [firstColumn, endColumn)}: the other elements
     * of the host's rows are left as they are. The default copies row by row.
     */
    default void downloadWindow(Object[] rows, int firstRow, int endRow, int firstColumn, int endColumn) {
        if (firstRow >= endRow || firstColumn >= endColumn) {
            return;
        }
        long rowBytes = HostArrays.byteSize(rows[0]);
        Object scratch = null;
        for (int i = firstRow; i < endRow; i++) {
            Object row = rows[i];
            if (firstColumn == 0 && endColumn == HostArrays.length(row)) {
                downloadAt(i * rowBytes, row);
                continue;
            }
            if (scratch == null) {
                scratch = java.lang.reflect.Array.newInstance(row.getClass().getComponentType(),
                        HostArrays.length(row));
            }
            downloadAt(i * rowBytes, scratch);
            System.arraycopy(scratch, firstColumn, row, firstColumn, endColumn - firstColumn);
        }
    }

    /**
     * Replaces the whole contents with {@code values}, each stored little-endian as the device reads a
     * {@code u64}.
     *
     * @throws IllegalArgumentException when {@code values.length * 8} is not {@link #bytes()}
     */
    void writeLongs(long[] values);

    /** Sets the device data to all zero bytes. */
    void zero();

    /** Frees the device memory; later calls do nothing. */
    @Override
    void close();

    /**
     * Forgets the device memory without freeing it, because the context that held it was destroyed (after a
     * sticky fault): freeing would fail. Afterwards the buffer counts as closed; later calls do nothing.
     */
    void abandon();
}
