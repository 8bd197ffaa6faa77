package org.acc4j.runtime.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * Owns one small block of page-locked host memory that the device reads and writes directly ({@code cuMemHostAlloc}
 * with {@code CU_MEMHOSTALLOC_DEVICEMAP}), with both of its addresses: the host's, so that a driver call can be given
 * a pointer into it (a launch's {@code kernelParams} table), and the device's ({@code cuMemHostGetDevicePointer}), so
 * that a kernel can write into it. A kernel's stores reach it over the link; once the launch is synchronised the host
 * reads them with a plain load, with no copy. Writes by the host before a launch are seen by the kernel.
 *
 * <p>Needs its context current on the calling thread for {@link #allocate} and {@link #close()}; {@link #close()}
 * is idempotent; {@link #abandon()} forgets the memory after its context was destroyed.
 */
public final class MappedMemory extends Handle {
    /** A pointer whose address can be read back: {@code cuMemHostAlloc} fills in its native address. */
    private static final class Addressed extends Pointer {
        long address() {
            return getNativePointer();
        }
    }

    private final Addressed pointer;
    private final long hostAddress;
    private final long deviceAddress;
    private final ByteBuffer view;
    private final long bytes;

    private MappedMemory(Addressed pointer, long deviceAddress, long bytes) {
        this.pointer = pointer;
        this.hostAddress = pointer.address();
        this.deviceAddress = deviceAddress;
        this.bytes = bytes;
        this.view = pointer.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
    }

    /**
     * Allocates {@code bytes} (1 to 1 MiB) of mapped pinned memory, zeroed.
     *
     * @throws DriverException when the host cannot pin it or the device cannot map it
     */
    public static MappedMemory allocate(long bytes, String what) {
        if (bytes < 1 || bytes > 1 << 20) {
            throw new IllegalArgumentException("mapped memory takes 1 byte to 1 MiB, not " + bytes + ", for " + what);
        }
        Addressed p = new Addressed();
        Driver.check(JCudaDriver.cuMemHostAlloc(p, bytes, jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP),
                "cuMemHostAlloc", "pinning and mapping " + bytes + " bytes of host memory for " + what);
        CUdeviceptr d = new CUdeviceptr();
        int r = JCudaDriver.cuMemHostGetDevicePointer(d, p, 0);
        if (r != 0) {
            JCudaDriver.cuMemFreeHost(p);
            Driver.check(r, "cuMemHostGetDevicePointer", "mapping " + bytes + " pinned bytes into the device for " + what);
        }
        MappedMemory m = new MappedMemory(p, DeviceBuffer.addressOf(d), bytes);
        for (int i = 0; i < bytes; i++) {
            m.view.put(i, (byte) 0);
        }
        return m;
    }

    /** The address a kernel writes through. */
    public long deviceAddress() {
        return deviceAddress;
    }

    /** The host address of byte {@code offset}, for a table of pointers the driver reads. */
    public long hostAddress(long offset) {
        return hostAddress + offset;
    }

    /** A JCuda pointer to byte {@code offset}, made once and handed to driver calls as often as needed. */
    public Pointer pointer(long offset) {
        return pointer.withByteOffset(offset);
    }

    /** The memory as a buffer in the host's byte order (the device's). */
    public ByteBuffer view() {
        return view;
    }

    public long bytes() {
        return bytes;
    }

    /** Frees the memory ({@code cuMemFreeHost}), once. */
    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuMemFreeHost(pointer), "cuMemFreeHost", "freeing " + bytes + " mapped pinned bytes");
    }

    @Override
    protected String closedMessage() {
        return "mapped memory of " + bytes + " bytes is freed";
    }
}
