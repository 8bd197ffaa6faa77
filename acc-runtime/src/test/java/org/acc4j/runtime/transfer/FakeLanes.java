package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;

/**
 * Opens fake {@link Lane}s: slots on the heap, and a queue that is one thread per lane, running each copy after a
 * random delay so that a pipeline that touches a slot too early reads or sends the wrong bytes. Instead of trusting
 * the pipeline, each lane records in {@link #violations} a slot used by the host while its copy is in flight (and
 * a slot changed under a queued copy, by checksum), two copies of one slot in flight at once, a lane closed with
 * copies in flight, and any use after close. Failures can be injected: the host refusing to pin ({@link #refuse}),
 * the n-th copy refused when queued ({@link #refuseCopy}) or failing on the device ({@link #failCopy}).
 *
 * <p>Lanes of {@linkplain #FakeLanes(boolean) write-combined} slots stand for memory the host writes and never reads:
 * a copy to the host through one is a violation, and a slot handed to the host holds random bytes, so that a copy
 * that sends bytes it did not write sends the wrong ones.
 */
final class FakeLanes implements StagedCopy.Opener<FakeDevice> {
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final List<Lane> opened = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger copies = new AtomicInteger();
    volatile boolean refuse;
    /** The number (from 1) of the copy to refuse when queued or to fail on the device; 0 for none. */
    volatile int refuseCopy;
    volatile int failCopy;
    /** The longest random delay before a copy runs, in microseconds. */
    volatile int delayMicros = 50;
    /** Whether the slots are write-combined: for copies to the device only. */
    final boolean writeCombined;

    FakeLanes() {
        this(false);
    }

    FakeLanes(boolean writeCombined) {
        this.writeCombined = writeCombined;
    }

    @Override
    public Lane open(long slotBytes, int slots) {
        if (refuse) {
            throw new IllegalStateException("CUDA_ERROR_OUT_OF_MEMORY (simulated): cannot pin " + slots * slotBytes);
        }
        Lane lane = new Lane(slotBytes, slots);
        opened.add(lane);
        return lane;
    }

    /** A fake lane; see {@link FakeLanes}. */
    final class Lane implements org.acc4j.runtime.transfer.Lane<FakeDevice> {
        private final long slotBytes;
        private final ByteBuffer[] slots;
        private final Future<?>[] pending;
        private final boolean[] awaited;
        private final ExecutorService queue = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fake copy queue");
            t.setDaemon(true);
            return t;
        });
        volatile boolean closed;
        volatile boolean abandoned;

        Lane(long slotBytes, int count) {
            this.slotBytes = slotBytes;
            slots = new ByteBuffer[count];
            for (int i = 0; i < count; i++) {
                slots[i] = ByteBuffer.allocateDirect((int) slotBytes).order(ByteOrder.nativeOrder());
            }
            pending = new Future<?>[count];
            awaited = new boolean[count];
        }

        @Override
        public int slots() {
            return slots.length;
        }

        @Override
        public long slotBytes() {
            return slotBytes;
        }

        @Override
        public synchronized ByteBuffer host(int slot) {
            open("host");
            if (pending[slot] != null && !awaited[slot]) {
                violations.add("the host took slot " + slot + " while its copy was in flight");
            }
            if (writeCombined) {
                // what the host finds there is unknown to it: it writes every byte it sends
                byte[] noise = new byte[slots[slot].capacity()];
                ThreadLocalRandom.current().nextBytes(noise);
                slots[slot].put(0, noise);
            }
            return slots[slot];
        }

        @Override
        public void toDevice(int slot, long bytes, FakeDevice device, long offset) {
            long sum = crc(slots[slot], (int) bytes);
            queue(slot, bytes, () -> {
                if (crc(slots[slot], (int) bytes) != sum) {
                    violations.add("slot " + slot + " changed while its copy to the device was queued");
                }
                device.write(offset, slots[slot], (int) bytes);
            });
        }

        @Override
        public void toHost(FakeDevice device, long offset, int slot, long bytes) {
            if (writeCombined) {
                violations.add("a copy to the host through write-combined slot " + slot);
            }
            queue(slot, bytes, () -> device.read(offset, slots[slot], (int) bytes));
        }

        private synchronized void queue(int slot, long bytes, Runnable copy) {
            open("a copy");
            if (bytes > slotBytes) {
                violations.add(bytes + " bytes copied through a " + slotBytes + "-byte slot");
            }
            if (pending[slot] != null && !awaited[slot]) {
                violations.add("a second copy of slot " + slot + " queued before the first was awaited");
            }
            int n = copies.incrementAndGet();
            if (n == refuseCopy) {
                throw new IllegalStateException("copy " + n + " refused (simulated)");
            }
            int delay = delayMicros;
            pending[slot] = queue.submit(() -> {
                if (delay > 0) {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(delay * 1000L + 1));
                }
                if (n == failCopy) {
                    throw new IllegalStateException("copy " + n + " failed on the device (simulated)");
                }
                copy.run();
            });
            awaited[slot] = false;
        }

        @Override
        public void await(int slot) {
            Future<?> f;
            synchronized (this) {
                open("await");
                f = pending[slot];
            }
            if (f != null) {
                get(f);
            }
            synchronized (this) {
                awaited[slot] = true;
            }
        }

        @Override
        public boolean done(int slot) {
            synchronized (this) {
                open("done");
                return pending[slot] == null || pending[slot].isDone();
            }
        }

        @Override
        public void drain() {
            // like a stream's synchronisation: everything completes, then the first failure is reported
            RuntimeException failure = null;
            for (int i = 0; i < slots.length; i++) {
                try {
                    await(i);
                } catch (RuntimeException e) {
                    failure = failure == null ? e : failure;
                }
            }
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            for (Future<?> f : pending) {
                if (f != null && !f.isDone()) {
                    violations.add("a lane closed with a copy in flight");
                }
            }
            closed = true;
            queue.shutdown();
        }

        @Override
        public synchronized void abandon() {
            closed = true;
            abandoned = true;
            queue.shutdownNow();
        }

        private void open(String what) {
            if (closed) {
                violations.add(what + " on a closed lane");
                throw new IllegalStateException("closed lane");
            }
        }

        private void get(Future<?> f) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }
    }

    private static long crc(ByteBuffer slot, int bytes) {
        CRC32 c = new CRC32();
        c.update(slot.slice(0, bytes));
        return c.getValue();
    }

    /** Lanes open now: opened and neither closed nor abandoned. */
    long open() {
        synchronized (opened) {
            return opened.stream().filter(l -> !l.closed).count();
        }
    }
}
