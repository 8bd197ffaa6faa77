package org.acc4j.runtime.async;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.PinnedBuffer;
import org.acc4j.runtime.cuda.Stream;
import org.acc4j.runtime.data.Buffer;
import org.acc4j.runtime.data.CudaMemory;

/**
 * One async queue: a CUDA {@link Stream}, the host-side {@link Completions} of the work on it, and its pools of
 * pinned staging buffers and kernel error records, reused from one wait to the next and freed by {@link #close()}.
 *
 * <p>Copies are staged through pinned memory so that they really overlap other work: an upload copies the Java array
 * into a pinned buffer now (so the host may change the array at once) and queues the DMA; a download queues the DMA
 * into a pinned buffer and copies it into the Java array at the wait. A pinned buffer goes back to the pool at the
 * wait. Where the host cannot pin more memory, or an array has more than {@link PinnedBuffer#MAX_BYTES} bytes (2 GiB),
 * the copy is made synchronously instead (on the default stream, which
 * the blocking stream keeps in order with the queue's work), and the queue stays correct.
 *
 * <p>Not thread-safe: every call runs under the device lock with the context current.
 */
public final class Queue implements AutoCloseable {
    /** A kernel's error record on the device and the pinned words it is copied into after the kernel. */
    public record ErrorSlot(DeviceBuffer device, PinnedBuffer host) {
        /** The record's two words ({@code code}, {@code detail}), once the queue has completed. */
        public long[] read() {
            long[] words = new long[2];
            host.readLongs(words, 2);
            return words;
        }
    }

    private final int number;
    private final Stream stream;
    private final Completions completions = new Completions();
    private final List<PinnedBuffer> pool = new ArrayList<>();
    private final List<ErrorSlot> slots = new ArrayList<>();
    /** Every pinned buffer and slot this queue allocated and has not freed, pooled or in use. */
    private final List<PinnedBuffer> pinned = new ArrayList<>();
    private final List<ErrorSlot> allSlots = new ArrayList<>();

    Queue(int number, Stream stream) {
        this.number = number;
        this.stream = stream;
    }

    /** The queue's number (0 and up, or {@code Acc.ASYNC_NOVAL}). */
    public int number() {
        return number;
    }

    /** The stream its device work goes on. */
    public Stream stream() {
        return stream;
    }

    /** Adds host-side work to run at the wait, after what was queued before. */
    public void then(Completions.Item item) {
        completions.add(item);
    }

    /**
     * Makes the work queued on this queue from now on wait for the work queued on {@code other} so far, on the device
     * (an event recorded on {@code other}'s stream, which this stream waits for), with no host wait. The host-side
     * work of {@code other} queued so far becomes this queue's too ({@link Completions#share}): whichever queue is
     * waited for first copies those results into the host arrays, so after a wait for this queue the host sees
     * everything it depended on, and a kernel of {@code other} that failed fails this queue's wait too.
     */
    public void waitFor(Queue other) {
        if (other == this) {
            return;
        }
        try (org.acc4j.runtime.cuda.Event e = org.acc4j.runtime.cuda.Event.fence(name(other.number) + " for "
                + name(number))) {
            e.record(other.stream);
            stream.waitFor(e);
        }
        Completions.Item shared = other.completions.share();
        if (shared != null) {
            completions.add(shared);
        }
    }

    /** Whether work was queued since the last wait. */
    public boolean busy() {
        return !completions.isEmpty();
    }

    /** The queue's name for messages. */
    public static String name(int number) {
        return number == org.acc4j.Acc.ASYNC_NOVAL ? "the default async queue" : "async queue " + number;
    }

    /**
     * Queues the upload of {@code host} into {@code buffer}: staged into pinned memory now, copied by the stream.
     */
    public void upload(Buffer buffer, Object host) {
        if (!(buffer instanceof CudaMemory.CudaBuffer)) {
            // a row laid out in a block: copied now, in place
            buffer.upload(host);
            return;
        }
        DeviceBuffer device = CudaMemory.deviceBuffer(buffer);
        PinnedBuffer staging = take(device.bytes());
        if (staging == null) {
            buffer.upload(host);
            return;
        }
        staging.stage(host);
        device.copyFromPinnedAsync(staging, stream);
        completions.add(failed -> {
            pool.add(staging);
            return null;
        });
    }

    /**
     * Queues the download of {@code buffer} into {@code host}: the stream copies into pinned memory, and the wait
     * copies that into {@code host} (unless an earlier item of the queue failed), then runs {@code after} if not null.
     */
    public void download(Buffer buffer, Object host, Completions.Item after) {
        // a row laid out in a block is copied now, in place
        DeviceBuffer device = buffer instanceof CudaMemory.CudaBuffer ? CudaMemory.deviceBuffer(buffer) : null;
        PinnedBuffer staging = device == null ? null : take(device.bytes());
        if (staging == null) {
            // the default stream waits for the queue's work before: the host gets the values now
            buffer.download(host);
            if (after != null) {
                completions.add(after);
            }
            return;
        }
        device.copyToPinnedAsync(staging, stream);
        completions.add(failed -> {
            try {
                if (!failed) {
                    staging.unstage(host);
                }
            } finally {
                pool.add(staging);
            }
            return after == null ? null : after.finish(failed);
        });
    }

    /** An error record for one kernel launch, zero-filled on the stream; back to the pool with {@link #recycle}. */
    public ErrorSlot errorSlot() {
        ErrorSlot slot;
        if (!slots.isEmpty()) {
            slot = slots.remove(slots.size() - 1);
        } else {
            DeviceBuffer device = CudaMemory.allocateBuffer(16, "the kernel error record of " + name(number));
            PinnedBuffer host;
            try {
                host = PinnedBuffer.allocate(16, "the kernel error record of " + name(number));
            } catch (RuntimeException e) {
                device.close();
                throw e;
            }
            slot = new ErrorSlot(device, host);
            allSlots.add(slot);
        }
        slot.device().zeroAsync(stream);
        return slot;
    }

    /** Gives an error record back to the pool (after the wait that read it). */
    public void recycle(ErrorSlot slot) {
        slots.add(slot);
    }

    /** Waits for the stream, then runs the host-side work in order; throws the first failure. */
    public void finish() {
        if (completions.isEmpty()) {
            return;
        }
        stream.synchronize("the work queued on " + name(number));
        completions.finish();
    }

    /** True when the queue has no work left (then its host-side work has run, as by {@link #finish}). */
    public boolean test() {
        if (completions.isEmpty()) {
            return true;
        }
        if (!stream.idle()) {
            return false;
        }
        completions.finish();
        return true;
    }

    /**
     * A pinned buffer of at least {@code bytes} from the pool (the smallest that fits) or newly allocated; null when
     * the host cannot pin that much even after the pool's free buffers are given back.
     */
    private PinnedBuffer take(long bytes) {
        if (bytes > PinnedBuffer.MAX_BYTES) {
            // beyond what JCuda can view as one buffer: the copy is made synchronously
            return null;
        }
        PinnedBuffer best = null;
        for (PinnedBuffer b : pool) {
            if (b.capacity() >= bytes && (best == null || b.capacity() < best.capacity())) {
                best = b;
            }
        }
        if (best != null) {
            pool.remove(best);
            return best;
        }
        for (int attempt = 0; ; attempt++) {
            try {
                PinnedBuffer b = PinnedBuffer.allocate(bytes, "staging on " + name(number));
                pinned.add(b);
                return b;
            } catch (DriverException e) {
                if (e.result() != CUresult.CUDA_ERROR_OUT_OF_MEMORY || attempt > 0) {
                    if (e.result() == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
                        return null;
                    }
                    throw e;
                }
                // give back the pooled buffers, too small for this copy, and try once more
                for (PinnedBuffer b : pool) {
                    pinned.remove(b);
                    b.close();
                }
                pool.clear();
            }
        }
    }

    /** Pinned bytes this queue holds, pooled or in use (for tests and messages). */
    public long pinnedBytes() {
        long total = 0;
        for (PinnedBuffer b : pinned) {
            total += b.capacity();
        }
        return total;
    }

    /** Forgets everything without freeing it: the context that held it was destroyed (after a fault). */
    void abandon() {
        completions.clear();
        stream.abandon();
        for (PinnedBuffer b : pinned) {
            b.abandon();
        }
        for (ErrorSlot s : allSlots) {
            s.device().abandon();
            s.host().abandon();
        }
        pinned.clear();
        pool.clear();
        slots.clear();
        allSlots.clear();
    }

    /** Frees the stream, the pinned buffers and the error records, going on past failures. Call after the wait. */
    @Override
    public void close() {
        RuntimeException failure = null;
        List<AutoCloseable> all = new ArrayList<>(pinned);
        for (ErrorSlot s : allSlots) {
            all.add(s.device());
            all.add(s.host());
        }
        all.add(stream);
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                RuntimeException r = e instanceof RuntimeException re ? re : new IllegalStateException(e);
                if (failure == null) {
                    failure = r;
                } else {
                    failure.addSuppressed(r);
                }
            }
        }
        completions.clear();
        pinned.clear();
        pool.clear();
        slots.clear();
        allSlots.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
