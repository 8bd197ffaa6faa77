package org.acc4j.runtime.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;

/**
 * Builds the {@code void** kernelParams} array for {@code cuLaunchKernel}.
 *
 * <p>Each parameter is held as a small Java array with the value, and the launch receives
 * {@code Pointer.to(Pointer.to(value0), Pointer.to(value1), ...)}. A device pointer parameter
 * is a 64-bit value, so {@link #addPointer(long)} stores the address in a {@code long[1]}; this
 * is the same bytes the driver would read from {@code Pointer.to(cudeviceptr)}. Parameters must
 * be added in the order (and with the widths) of the kernel's PTX {@code .param} list.
 *
 * <p>A builder: mutable and not thread-safe; it may be launched many times.
 */
public final class KernelArgs {

    private final List<Pointer> values = new ArrayList<>();

    /** Adds the device address of {@code buffer} (0 for an empty buffer). */
    public KernelArgs addPointer(DeviceBuffer buffer) {
        return addPointer(buffer.address());
    }

    /** Adds a raw 64-bit device address. */
    public KernelArgs addPointer(long address) {
        values.add(Pointer.to(new long[] {address}));
        return this;
    }

    /** Adds a 32-bit integer ({@code .s32}/{@code .u32}). */
    public KernelArgs addInt(int value) {
        values.add(Pointer.to(new int[] {value}));
        return this;
    }

    /** Adds a 64-bit integer ({@code .s64}/{@code .u64}). */
    public KernelArgs addLong(long value) {
        values.add(Pointer.to(new long[] {value}));
        return this;
    }

    /** Adds a {@code .f32}. */
    public KernelArgs addFloat(float value) {
        values.add(Pointer.to(new float[] {value}));
        return this;
    }

    /** Adds a {@code .f64}. */
    public KernelArgs addDouble(double value) {
        values.add(Pointer.to(new double[] {value}));
        return this;
    }

    /** Number of parameters added so far. */
    public int count() {
        return values.size();
    }

    /** The {@code kernelParams} pointer for {@code cuLaunchKernel}; null when there are none. */
    Pointer toPointer() {
        // a kernel without parameters takes a null kernelParams
        return values.isEmpty() ? null : Pointer.to(values.toArray(new Pointer[0]));
    }
}
