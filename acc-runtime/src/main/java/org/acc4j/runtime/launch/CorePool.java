package org.acc4j.runtime.launch;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * The multicore target's threads: the calling thread and {@code threads - 1} workers of its own run the chunks of one
 * call, each participant taking a contiguous block of the chunks in order and then, once its block is done, the
 * chunks left at the end of the others' blocks.
 *
 * <p><b>Blocks.</b> Of {@code chunks} chunks on {@code p = min(threads, chunks)} participants, participant {@code t}
 * owns chunks {@code [t * chunks / p, (t + 1) * chunks / p)}: consecutive iterations of the loop, so that each thread
 * walks its own consecutive pages of every array, as a static OpenMP schedule does. The owner takes its chunks from the
 * front of its block; a participant whose block is done takes chunks from the back of another's, so that a thread
 * slowed by other work is helped while the owners stay on their own pages. Which thread runs a chunk never changes a
 * result: chunks write disjoint elements and their reductions are combined in chunk order by the caller.
 *
 * <p><b>Waking.</b> Between calls the workers spin for a short while ({@link #SPIN_NANOS}), then park; a call
 * publishes its job and unparks them, and the caller works on its own block meanwhile. The caller returns when every
 * chunk has run; a worker still looking at a finished job finds no chunk left in it.
 *
 * <p>One call runs on the pool at a time: other callers wait for it. A call from a chunk (a worker's or the running
 * caller's) runs its chunks on the calling thread.
 */
final class CorePool implements AutoCloseable {
    /** How long an idle worker spins before parking, so that back-to-back calls wake it without a system call. */
    static final long SPIN_NANOS = 50_000;

    private final int threads;
    private final Worker[] workers;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Job current;
    /** Calls run so far (under the lock). */
    private long calls;
    private volatile boolean closed;

    /** @param threads the participants of a call: the caller and {@code threads - 1} workers (at least 1) */
    CorePool(int threads, String name) {
        this.threads = Math.max(1, threads);
        this.workers = new Worker[this.threads - 1];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker(i + 1);
            workers[i].setName(name + "-" + i);
            workers[i].setDaemon(true);
            workers[i].start();
        }
    }

    int threads() {
        return threads;
    }

    /** Runs {@code chunk.accept(c)} for every {@code c} in {@code [0, chunks)}; returns when all have run. */
    void run(int chunks, IntConsumer chunk) {
        if (chunks <= 0) {
            return;
        }
        if (threads == 1 || chunks == 1 || Thread.currentThread() instanceof Worker || lock.isHeldByCurrentThread()) {
            for (int c = 0; c < chunks; c++) {
                chunk.accept(c);
            }
            return;
        }
        if (closed) {
            throw new IllegalStateException("the multicore pool is closed");
        }
        lock.lock();
        try {
            Job job = new Job(++calls, chunks, Math.min(threads, chunks), chunk, Thread.currentThread());
            current = job;
            for (int i = 0; i < Math.min(workers.length, job.participants - 1); i++) {
                LockSupport.unpark(workers[i]);
            }
            job.work(0);
            job.await();
            Throwable t = job.error;
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
            if (t != null) {
                throw new IllegalStateException("a chunk threw " + t, t);
            }
        } finally {
            // the finished job holds the call's arrays: let them go
            current = null;
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Worker w : workers) {
            LockSupport.unpark(w);
        }
    }

    /** One call's chunks: each participant's block as {@code (next, end)} packed in one long, padded apart. */
    private static final class Job {
        private static final int PAD = 8;
        final int chunks;
        final int participants;
        final IntConsumer chunk;
        final Thread caller;
        final AtomicLongArray blocks;
        final AtomicInteger done = new AtomicInteger();
        /** The call's number on its pool, from 1: how a worker tells a new job from the one it ran. */
        final long id;
        volatile Throwable error;

        Job(long id, int chunks, int participants, IntConsumer chunk, Thread caller) {
            this.id = id;
            this.chunks = chunks;
            this.participants = participants;
            this.chunk = chunk;
            this.caller = caller;
            this.blocks = new AtomicLongArray(participants * PAD);
            for (int t = 0; t < participants; t++) {
                long from = (long) t * chunks / participants;
                long to = (long) (t + 1) * chunks / participants;
                blocks.set(t * PAD, from << 32 | to);
            }
        }

        /** Participant {@code t}: its own block from the front, then the others' from the back. */
        void work(int t) {
            if (t >= participants) {
                t = t % participants;
            }
            int c;
            while ((c = takeFront(t)) >= 0) {
                runChunk(c);
            }
            for (int i = 1; i < participants; i++) {
                int v = (t + i) % participants;
                while ((c = takeBack(v)) >= 0) {
                    runChunk(c);
                }
            }
        }

        private int takeFront(int t) {
            int at = t * PAD;
            while (true) {
                long b = blocks.get(at);
                int next = (int) (b >>> 32);
                int end = (int) b;
                if (next >= end) {
                    return -1;
                }
                if (blocks.compareAndSet(at, b, (long) (next + 1) << 32 | end)) {
                    return next;
                }
            }
        }

        private int takeBack(int t) {
            int at = t * PAD;
            while (true) {
                long b = blocks.get(at);
                int next = (int) (b >>> 32);
                int end = (int) b;
                if (next >= end) {
                    return -1;
                }
                if (blocks.compareAndSet(at, b, (long) next << 32 | (end - 1))) {
                    return end - 1;
                }
            }
        }

        private void runChunk(int c) {
            try {
                chunk.accept(c);
            } catch (Throwable e) {
                if (error == null) {
                    error = e;
                }
            }
            if (done.incrementAndGet() == chunks) {
                LockSupport.unpark(caller);
            }
        }

        /** The caller's wait for the chunks others run: a short spin, then parked until the last one unparks it. */
        void await() {
            long until = System.nanoTime() + SPIN_NANOS;
            while (done.get() < chunks) {
                if (System.nanoTime() < until) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(this);
                }
            }
        }
    }

    private final class Worker extends Thread {
        private final int index;

        Worker(int index) {
            this.index = index;
        }

        @Override
        public void run() {
            long seen = 0;
            long idleSince = System.nanoTime();
            while (!closed) {
                Job job = current;
                if (job != null && job.id != seen) {
                    seen = job.id;
                    if (index < job.participants) {
                        job.work(index);
                    }
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(CorePool.this);
                }
            }
        }
    }
}
