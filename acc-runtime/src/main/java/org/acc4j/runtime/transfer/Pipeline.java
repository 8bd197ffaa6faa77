package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * One staged copy with no barrier between chunks: helper threads take the pieces of the whole array in order, each
 * as soon as its chunk's slot is the host's, while the calling thread alone talks to the lane, queueing a chunk's
 * device copy the moment its last piece is staged (to the device), or handing a slot to the helpers the moment its
 * device copy has landed (to the host). A slow piece then delays only its own chunk's device copy, never the
 * helpers' work on the chunks after it, and the device copies overlap the host's copies in both directions. The
 * caller takes pieces too whenever it has nothing to queue, so the copy progresses even when no helper ever starts.
 *
 * <p>At most {@code slots} chunks are between the host and the device at once; chunk {@code k} uses slot
 * {@code k % slots}, whose state (the slot's memory, the chunk it holds, the pieces still to copy) sits in ring
 * entry {@code k % slots}. The lane's rules hold: the host touches a slot only between the await of its last device
 * copy and the queueing of the next, and only the calling thread calls the lane.
 *
 * <p>On a failure (a piece that throws, a refused copy) no more pieces are started, the helpers still inside a piece
 * finish it, and the first failure is thrown with the others suppressed; the caller then drains and discards the lane.
 */
final class Pipeline<D> {
    /**
     * How a thread waits for a helper or the device: it spins for {@code SPIN_NANOS}, then yields its core for up to
     * {@code YIELD_NANOS} (a yield returns at once when no other thread wants the core), and only then naps: a nap
     * takes tens of microseconds however short it is asked to be (the kernel's timer slack), as long as a chunk's copy.
     */
    private static final long SPIN_NANOS = 50_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long NAP_NANOS = 20_000;

    private final Plan plan;
    private final StagedCopy.Host host;
    private final Lane<D> lane;
    private final D device;
    private final boolean in;
    private final int slots;
    private final long chunks;
    private final long pieces;
    private final Thread caller = Thread.currentThread();
    /** Where the copy's events go, or null. */
    private final Trace trace;
    /** The least time between two questions to the lane whether a device copy is done (0: none). */
    private final long pollNanos;
    private long nextPoll;
    /** Whether the caller copies pieces whenever it has nothing to queue, or only while no helper has started. */
    private final boolean callerCopies;
    /** To the host: whether the first device copies are queued one per turn, or all before the first look. */
    private final boolean interleave;
    /** To the device: the pieces of chunks up to this many bytes are written back once copied ({@link Writeback}). */
    private final long flushBytes;

    /** To the host: the device copies queued before the helpers were woken. */
    private long queuedFirst;
    /** The next piece to take, over the whole array in order. */
    private final AtomicLong next = new AtomicLong();
    /** Per ring entry: the slot's memory while the host may use it. */
    private final AtomicReferenceArray<ByteBuffer> memory;
    /** Per ring entry: the chunk whose pieces may be copied now, or -1. */
    private final AtomicLongArray ready;
    /** Per ring entry: pieces of that chunk not yet copied. */
    private final AtomicIntegerArray left;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Helpers inside the copy, with the sign bit set once the copy admits no more. */
    private final AtomicInteger inside = new AtomicInteger();

    private Pipeline(Plan plan, StagedCopy.Host host, Lane<D> lane, D device, boolean in, Trace trace,
                     long pollNanos, boolean callerCopies, boolean interleave, long flushBytes) {
        this.flushBytes = flushBytes;
        this.callerCopies = callerCopies;
        this.interleave = interleave;
        this.plan = plan;
        this.trace = trace;
        this.pollNanos = pollNanos;
        this.host = host;
        this.lane = lane;
        this.device = device;
        this.in = in;
        this.slots = lane.slots();
        this.chunks = plan.chunks();
        this.pieces = plan.pieces();
        this.memory = new AtomicReferenceArray<>(slots);
        this.ready = new AtomicLongArray(slots);
        this.left = new AtomicIntegerArray(slots);
        for (int r = 0; r < slots; r++) {
            ready.set(r, -1);
        }
    }

    /**
     * Copies the whole of {@code host} to {@code device} (or back, {@code in} false) through {@code lane}, with up
     * to {@code helpers} tasks of {@code executor} copying pieces beside the calling thread. Returns once every
     * device copy is queued (to the device) or every piece is in the array (to the host); the caller drains.
     */
    static <D> void run(Plan plan, StagedCopy.Host host, Lane<D> lane, D device, boolean in,
                        Executor executor, int helpers) {
        run(plan, host, lane, device, in, executor, helpers, null, 0, true, true, 0);
    }

    /**
     * {@link #run(Plan, StagedCopy.Host, Lane, Object, boolean, Executor, int)}, its events to {@code trace} (or
     * none), asking the lane whether a device copy is done at most once per {@code pollNanos} (0: as often as the
     * caller has nothing else to do); the caller copies pieces whenever it has nothing to queue ({@code callerCopies})
     * or only while no helper has started; to the host, the first device copies are queued one per turn with a look
     * for a landed one between two ({@code interleave}), or all before the first look; to the device, each piece of a
     * chunk of at most {@code flushBytes} is written back from the caches once copied.
     */
    static <D> void run(Plan plan, StagedCopy.Host host, Lane<D> lane, D device, boolean in,
                        Executor executor, int helpers, Trace trace, long pollNanos, boolean callerCopies,
                        boolean interleave, long flushBytes) {
        Pipeline<D> p = new Pipeline<>(plan, host, lane, device, in, trace, pollNanos, callerCopies, interleave,
                flushBytes);
        long n = Math.min(helpers, p.pieces - 1);
        try {
            if (!in && interleave && p.chunks > 0) {
                // the first device copy before the helpers are woken: they have nothing to do until it lands
                p.queueToHost(0);
                p.queuedFirst = 1;
            }
            for (long i = 0; i < n; i++) {
                try {
                    if (trace != null) {
                        trace.add(Trace.Kind.HELPER_QUEUED, i);
                    }
                    executor.execute(p::help);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    // no more helpers (their threads are ending): the caller copies what they would have
                    break;
                }
            }
            if (in) {
                p.toDevice();
            } else {
                p.toHost();
            }
        } catch (RuntimeException | Error e) {
            p.fail(e);
        }
        p.close();
        if (trace != null) {
            trace.add(Trace.Kind.PIPELINE_END, 0);
        }
        Throwable t = p.failure.get();
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
    }

    /** To the device: release the first slots; queue each chunk once staged; release a slot once its copy landed. */
    private void toDevice() {
        long released = Math.min(slots, chunks);
        for (long k = 0; k < released; k++) {
            release(k);
        }
        long queued = 0;
        long idle = 0;
        while (queued < chunks && failure.get() == null) {
            boolean moved = false;
            int r = (int) (queued % slots);
            if (ready.get(r) == queued && left.get(r) == 0) {
                memory.set(r, null);
                event(Trace.Kind.QUEUE_BEGIN, queued);
                lane.toDevice(r, bytes(queued), device, offset(queued));
                event(Trace.Kind.QUEUE_END, queued);
                queued++;
                moved = true;
            }
            if (released < chunks && released - slots < queued && done((int) (released % slots))) {
                lane.await((int) (released % slots));
                event(Trace.Kind.LANDED, released - slots);
                release(released);
                released++;
                moved = true;
            }
            idle = moved || takeOne() ? 0 : pause(idle);
        }
    }

    /**
     * To the host: queue a chunk into each free slot, one per turn (the first before the helpers are woken), looking
     * between two for a copy that landed, so that the first chunk's pieces start as soon as it is on the host rather
     * than after every slot was queued (without {@link #interleave}, the first slots are all queued before the first
     * look); hand each slot to the pieces once landed; reuse it once copied out.
     */
    private void toHost() {
        long queued = queuedFirst;
        if (!interleave) {
            for (; queued < Math.min(slots, chunks); queued++) {
                queueToHost(queued);
            }
        }
        long landed = 0;
        long finished = 0;
        long idle = 0;
        while (finished < chunks && failure.get() == null) {
            boolean moved = false;
            if (landed < queued && done((int) (landed % slots))) {
                lane.await((int) (landed % slots));
                event(Trace.Kind.LANDED, landed);
                release(landed);
                landed++;
                moved = true;
            }
            int r = (int) (finished % slots);
            if (finished < landed && ready.get(r) == finished && left.get(r) == 0) {
                memory.set(r, null);
                finished++;
                moved = true;
            }
            if (queued < chunks && queued - finished < slots) {
                queueToHost(queued);
                queued++;
                moved = true;
            }
            idle = moved || takeOne() ? 0 : pause(idle);
        }
    }

    /** Queues chunk {@code k}'s device copy into its slot. */
    private void queueToHost(long k) {
        event(Trace.Kind.QUEUE_BEGIN, k);
        lane.toHost(device, offset(k), (int) (k % slots), bytes(k));
        event(Trace.Kind.QUEUE_END, k);
    }

    /** Whether the last device copy of {@code slot} is done, asking the lane at most once per {@code pollNanos}. */
    private boolean done(int slot) {
        if (pollNanos == 0) {
            return lane.done(slot);
        }
        long now = System.nanoTime();
        if (now - nextPoll < 0) {
            return false;
        }
        boolean done = lane.done(slot);
        nextPoll = done ? now : now + pollNanos;
        return done;
    }

    /** Hands chunk {@code k}'s slot to the pieces: its memory, its count of pieces, then the chunk itself. */
    private void release(long k) {
        int r = (int) (k % slots);
        memory.set(r, lane.host(r));
        left.set(r, piecesOf(k));
        ready.set(r, k);
        event(Trace.Kind.RELEASE, k);
    }

    private void event(Trace.Kind kind, long arg) {
        if (trace != null) {
            trace.add(kind, arg);
        }
    }

    /** A helper: enters unless the copy is over, takes pieces in order until none is left or the copy failed. */
    private void help() {
        for (int s = inside.get(); ; s = inside.get()) {
            if (s < 0) {
                return;
            }
            if (inside.compareAndSet(s, s + 1)) {
                break;
            }
        }
        event(Trace.Kind.HELPER_ENTER, 0);
        try {
            while (failure.get() == null) {
                long p = next.getAndIncrement();
                if (p >= pieces) {
                    return;
                }
                if (!waitFor(plan.chunkOf(p))) {
                    return;
                }
                copy(p);
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        } finally {
            inside.decrementAndGet();
        }
    }

    /**
     * The caller's turn at a piece, taken only when its chunk is ready, so that the caller never waits for one; where
     * the caller leaves the pieces to the helpers, only while none has started.
     */
    private boolean takeOne() {
        if (!callerCopies && (inside.get() & Integer.MAX_VALUE) != 0) {
            return false;
        }
        long p = next.get();
        if (p >= pieces) {
            return false;
        }
        long k = plan.chunkOf(p);
        if (ready.get((int) (k % slots)) != k || !next.compareAndSet(p, p + 1)) {
            return false;
        }
        copy(p);
        return true;
    }

    /** Waits until chunk {@code k} is the host's; false when the copy failed meanwhile. */
    private boolean waitFor(long k) {
        int r = (int) (k % slots);
        for (long since = 0; ready.get(r) != k; since = pause(since)) {
            if (failure.get() != null) {
                return false;
            }
        }
        return true;
    }

    /** Copies piece {@code p} between the array and its chunk's slot; wakes the caller after a chunk's last piece. */
    private void copy(long p) {
        long k = plan.chunkOf(p);
        int r = (int) (k % slots);
        int per = plan.pieceElements(k);
        int from = (int) (p - plan.firstPiece(k)) * per;
        int count = Math.min(per, plan.count(k) - from);
        event(Trace.Kind.PIECE_BEGIN, p);
        ByteBuffer slot = memory.get(r);
        host.copy(plan.copy(), plan.first(k) + from, count, slot, from * plan.width(), in);
        if (in && (long) plan.count(k) * plan.width() <= flushBytes) {
            Writeback.range(slot, (long) from * plan.width(), (long) count * plan.width());
        }
        event(Trace.Kind.PIECE_END, p);
        if (left.decrementAndGet(r) == 0) {
            LockSupport.unpark(caller);
        }
    }

    /** One step of a wait that began at {@code since} (0: begins now); returns when it began. */
    private static long pause(long since) {
        long now = System.nanoTime();
        if (since == 0) {
            Thread.onSpinWait();
            return now == 0 ? 1 : now;
        }
        long waited = now - since;
        if (waited < SPIN_NANOS) {
            Thread.onSpinWait();
        } else if (waited < YIELD_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(NAP_NANOS);
        }
        return since;
    }

    private void fail(Throwable t) {
        if (!failure.compareAndSet(null, t) && failure.get() != t) {
            failure.get().addSuppressed(t);
        }
    }

    /** Admits no more helpers and waits for those inside (each finishes its piece). */
    private void close() {
        for (int s = inside.get(); !inside.compareAndSet(s, s | Integer.MIN_VALUE); s = inside.get()) {
            Thread.onSpinWait();
        }
        for (long since = 0; (inside.get() & Integer.MAX_VALUE) != 0; since = pause(since)) {
            // each helper inside finishes its piece
        }
    }

    private int piecesOf(long k) {
        return (int) (plan.firstPiece(k + 1) - plan.firstPiece(k));
    }

    private long bytes(long k) {
        return (long) plan.count(k) * plan.width();
    }

    private long offset(long k) {
        return host.deviceOffset() + plan.first(k) * plan.width();
    }
}
