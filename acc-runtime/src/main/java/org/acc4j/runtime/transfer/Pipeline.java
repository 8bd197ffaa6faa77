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
    /** Spins of the calling thread before it sleeps a little while waiting for a helper or the device. */
    private static final int SPINS = 2000;
    private static final long NAP_NANOS = 5_000;

    private final StagedCopy.Plan plan;
    private final StagedCopy.Host host;
    private final Lane<D> lane;
    private final D device;
    private final boolean in;
    private final int slots;
    private final long chunks;
    /** Pieces of every chunk but possibly the last. */
    private final int perChunk;
    private final long pieces;
    private final Thread caller = Thread.currentThread();

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

    private Pipeline(StagedCopy.Plan plan, StagedCopy.Host host, Lane<D> lane, D device, boolean in) {
        this.plan = plan;
        this.host = host;
        this.lane = lane;
        this.device = device;
        this.in = in;
        this.slots = lane.slots();
        this.chunks = plan.chunks();
        this.perChunk = (int) ceilDiv(plan.chunkElements(), plan.pieceElements());
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
    static <D> void run(StagedCopy.Plan plan, StagedCopy.Host host, Lane<D> lane, D device, boolean in,
                        Executor executor, int helpers) {
        Pipeline<D> p = new Pipeline<>(plan, host, lane, device, in);
        long n = Math.min(helpers, p.pieces - 1);
        try {
            for (long i = 0; i < n; i++) {
                try {
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
        int idle = 0;
        while (queued < chunks && failure.get() == null) {
            boolean moved = false;
            int r = (int) (queued % slots);
            if (ready.get(r) == queued && left.get(r) == 0) {
                memory.set(r, null);
                lane.toDevice(r, bytes(queued), device, offset(queued));
                queued++;
                moved = true;
            }
            if (released < chunks && released - slots < queued && lane.done((int) (released % slots))) {
                lane.await((int) (released % slots));
                release(released);
                released++;
                moved = true;
            }
            idle = moved || takeOne() ? 0 : pause(idle);
        }
    }

    /** To the host: queue the first chunks; hand each slot to the pieces once landed; reuse it once copied out. */
    private void toHost() {
        long queued = Math.min(slots, chunks);
        for (long k = 0; k < queued; k++) {
            lane.toHost(device, offset(k), (int) k, bytes(k));
        }
        long landed = 0;
        long finished = 0;
        int idle = 0;
        while (finished < chunks && failure.get() == null) {
            boolean moved = false;
            if (landed < queued && lane.done((int) (landed % slots))) {
                lane.await((int) (landed % slots));
                release(landed);
                landed++;
                moved = true;
            }
            int r = (int) (finished % slots);
            if (finished < landed && ready.get(r) == finished && left.get(r) == 0) {
                memory.set(r, null);
                finished++;
                if (queued < chunks) {
                    lane.toHost(device, offset(queued), (int) (queued % slots), bytes(queued));
                    queued++;
                }
                moved = true;
            }
            idle = moved || takeOne() ? 0 : pause(idle);
        }
    }

    /** Hands chunk {@code k}'s slot to the pieces: its memory, its count of pieces, then the chunk itself. */
    private void release(long k) {
        int r = (int) (k % slots);
        memory.set(r, lane.host(r));
        left.set(r, piecesOf(k));
        ready.set(r, k);
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
        try {
            while (failure.get() == null) {
                long p = next.getAndIncrement();
                if (p >= pieces) {
                    return;
                }
                if (!waitFor(p / perChunk)) {
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

    /** The caller's turn at a piece, taken only when its chunk is ready, so that the caller never waits for one. */
    private boolean takeOne() {
        long p = next.get();
        if (p >= pieces || ready.get((int) ((p / perChunk) % slots)) != p / perChunk || !next.compareAndSet(p, p + 1)) {
            return false;
        }
        copy(p);
        return true;
    }

    /** Waits until chunk {@code k} is the host's; false when the copy failed meanwhile. */
    private boolean waitFor(long k) {
        int r = (int) (k % slots);
        for (int spins = 0; ready.get(r) != k; spins++) {
            if (failure.get() != null) {
                return false;
            }
            if (spins < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(NAP_NANOS);
            }
        }
        return true;
    }

    /** Copies piece {@code p} between the array and its chunk's slot; wakes the caller after a chunk's last piece. */
    private void copy(long p) {
        long k = p / perChunk;
        int i = (int) (p % perChunk);
        int r = (int) (k % slots);
        int from = i * plan.pieceElements();
        int count = Math.min(plan.pieceElements(), plan.count(k) - from);
        host.copy(plan.copy(), plan.first(k) + from, count, memory.get(r), from * plan.width(), in);
        if (left.decrementAndGet(r) == 0) {
            LockSupport.unpark(caller);
        }
    }

    private int pause(int idle) {
        if (idle < SPINS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(NAP_NANOS);
        }
        return idle + 1;
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
        for (int spins = 0; (inside.get() & Integer.MAX_VALUE) != 0; spins++) {
            if (spins < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(NAP_NANOS);
            }
        }
    }

    private int piecesOf(long k) {
        return (int) ceilDiv(plan.count(k), plan.pieceElements());
    }

    private long bytes(long k) {
        return (long) plan.count(k) * plan.width();
    }

    private long offset(long k) {
        return host.deviceOffset() + plan.first(k) * plan.width();
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
