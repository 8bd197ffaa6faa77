package org.acc4j.runtime.transfer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The timeline of staged copies, for a probe that asks for it ({@link StagedCopy#trace}): each event is a time
 * ({@link System#nanoTime}), the thread that saw it (numbered from 0 in order of first appearance), its kind and one
 * argument (a piece, a chunk or a helper). Events past the capacity are counted but dropped. Thread-safe; a copy with
 * no trace records nothing.
 */
final class Trace {
    /** What happened. */
    enum Kind {
        /** A copy starts (argument: bytes). */
        BEGIN,
        /** It has its lane (argument: chunks). */
        LANE,
        /** The caller hands helper task {@code arg} to the staging threads. */
        HELPER_QUEUED,
        /** Helper task {@code arg} starts on a staging thread. */
        HELPER_ENTER,
        /** A thread starts piece {@code arg}. */
        PIECE_BEGIN,
        /** A thread ends piece {@code arg}. */
        PIECE_END,
        /** Chunk {@code arg}'s slot is handed to the pieces. */
        RELEASE,
        /** The caller starts to queue chunk {@code arg}'s device copy. */
        QUEUE_BEGIN,
        /** Chunk {@code arg}'s device copy is queued. */
        QUEUE_END,
        /** The caller has seen chunk {@code arg}'s device copy complete. */
        LANDED,
        /** The pipeline returns: every device copy queued or every piece copied. */
        PIPELINE_END,
        /** The lane is drained and the copy returns. */
        END
    }

    private final long[] times;
    private final int[] threads;
    private final byte[] kinds;
    private final long[] args;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger threadCount = new AtomicInteger();
    private final ThreadLocal<Integer> threadIds = ThreadLocal.withInitial(threadCount::getAndIncrement);

    Trace(int capacity) {
        times = new long[capacity];
        threads = new int[capacity];
        kinds = new byte[capacity];
        args = new long[capacity];
    }

    void add(Kind kind, long arg) {
        long t = System.nanoTime();
        int i = next.getAndIncrement();
        if (i < times.length) {
            times[i] = t;
            threads[i] = threadIds.get();
            kinds[i] = (byte) kind.ordinal();
            args[i] = arg;
        }
    }

    /** Forgets the events (not the thread numbers); call between copies only. */
    void clear() {
        next.set(0);
    }

    /** Events recorded and kept. */
    int size() {
        return Math.min(next.get(), times.length);
    }

    /** Events past the capacity, dropped. */
    int dropped() {
        return Math.max(0, next.get() - times.length);
    }

    long time(int i) {
        return times[i];
    }

    int thread(int i) {
        return threads[i];
    }

    Kind kind(int i) {
        return Kind.values()[kinds[i]];
    }

    long arg(int i) {
        return args[i];
    }
}
