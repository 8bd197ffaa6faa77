package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Event;
import org.acc4j.runtime.cuda.PinnedBuffer;
import org.acc4j.runtime.cuda.Stream;

/**
 * A {@link Lane} on CUDA: one stream, and per slot a pinned buffer ({@code cuMemHostAlloc}) with an event recorded
 * after each copy of it. The stream is blocking, so staged copies keep their order with the runtime's work on the
 * default stream. Owns all of them; {@link #close()} frees them in reverse order and is idempotent. Needs the
 * context current on the calling thread, except for {@link #host}.
 */
public final class CudaLane implements Lane<DeviceBuffer> {
    private final Stream stream;
    private final PinnedBuffer[] pinned;
    private final ByteBuffer[] views;
    private final Event[] done;
    private final long slotBytes;
    private final boolean writeCombined;
    private boolean closed;

    private CudaLane(Stream stream, PinnedBuffer[] pinned, Event[] done, long slotBytes, boolean writeCombined) {
        this.writeCombined = writeCombined;
        this.stream = stream;
        this.pinned = pinned;
        this.done = done;
        this.slotBytes = slotBytes;
        this.views = new ByteBuffer[pinned.length];
        for (int i = 0; i < pinned.length; i++) {
            views[i] = pinned[i].view();
        }
    }

    /**
     * Creates the stream, pins {@code slots} buffers of {@code slotBytes} and creates their events; on failure frees
     * what it made and throws.
     *
     * @throws org.acc4j.runtime.cuda.DriverException e.g. when the host cannot pin the memory
     */
    public static CudaLane open(long slotBytes, int slots) {
        return open(slotBytes, slots, false);
    }

    /**
     * {@link #open(long, int)} with write-combined slots ({@link PinnedBuffer#allocateWriteCombined}): a lane for
     * copies to the device only, whose slots the host writes and never reads; {@link #toHost} refuses.
     */
    public static CudaLane openWriteCombined(long slotBytes, int slots) {
        return open(slotBytes, slots, true);
    }

    private static CudaLane open(long slotBytes, int slots, boolean writeCombined) {
        Stream stream = null;
        PinnedBuffer[] pinned = new PinnedBuffer[slots];
        Event[] done = new Event[slots];
        try {
            stream = Stream.create("staged copies");
            for (int i = 0; i < slots; i++) {
                String what = "staging slot " + i + " of staged copies";
                pinned[i] = writeCombined ? PinnedBuffer.allocateWriteCombined(slotBytes, what)
                        : PinnedBuffer.allocate(slotBytes, what);
                done[i] = Event.fence("end of the copy of staging slot " + i);
            }
            return new CudaLane(stream, pinned, done, slotBytes, writeCombined);
        } catch (RuntimeException e) {
            free(stream, pinned, done, e);
            throw e;
        }
    }

    /** The stream the copies are queued on, for a probe that times them with events of its own. */
    Stream stream() {
        return stream;
    }

    @Override
    public int slots() {
        return pinned.length;
    }

    @Override
    public long slotBytes() {
        return slotBytes;
    }

    @Override
    public ByteBuffer host(int slot) {
        return views[slot];
    }

    @Override
    public void toDevice(int slot, long bytes, DeviceBuffer device, long offset) {
        device.copyFromPinnedAsync(offset, pinned[slot], bytes, stream);
        done[slot].record(stream);
    }

    @Override
    public void toHost(DeviceBuffer device, long offset, int slot, long bytes) {
        if (writeCombined) {
            throw new IllegalStateException("a lane of write-combined slots copies to the device only");
        }
        device.copyToPinnedAsync(offset, pinned[slot], bytes, stream);
        done[slot].record(stream);
    }

    @Override
    public void await(int slot) {
        done[slot].synchronize();
    }

    @Override
    public boolean done(int slot) {
        return done[slot].isDone();
    }

    @Override
    public void drain() {
        stream.synchronize("staged copies");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = free(stream, pinned, done, null);
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized void abandon() {
        closed = true;
        for (int i = 0; i < pinned.length; i++) {
            done[i].abandon();
            pinned[i].abandon();
        }
        stream.abandon();
    }

    /** Frees what exists, events and buffers before the stream, adding failures to {@code failure} (or the first). */
    private static RuntimeException free(Stream stream, PinnedBuffer[] pinned, Event[] done, RuntimeException failure) {
        for (int i = pinned.length - 1; i >= 0; i--) {
            failure = run(done[i], failure);
            failure = run(pinned[i], failure);
        }
        return run(stream, failure);
    }

    private static RuntimeException run(AutoCloseable c, RuntimeException failure) {
        if (c == null) {
            return failure;
        }
        try {
            c.close();
        } catch (Exception e) {
            RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
            if (failure == null) {
                return r;
            }
            failure.addSuppressed(r);
        }
        return failure;
    }

    @Override
    public String toString() {
        return "CudaLane[" + pinned.length + (writeCombined ? " write-combined" : "") + " slots of " + slotBytes
                + " bytes]";
    }
}
