package org.acc4j.runtime.transfer;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * The helper threads of staged copies: daemon threads that, after a task, keep looking for the next one for a short
 * while (by default {@link #SPIN_MICROS}) before they sleep. Copies that follow each other closely (a call that takes two arrays
 * to the device, then one back) then find their helpers awake, where a sleeping thread takes tens of microseconds to
 * wake, as long as a small copy's host side takes. A task queued while every thread sleeps wakes one, and a thread
 * that takes a task while more wait wakes another. Thread-safe; {@link #close} ends the threads once their tasks
 * are done.
 */
final class Crew implements Executor, AutoCloseable {
    /** How long a thread looks for work after its last task before it sleeps, by default. */
    static final long SPIN_MICROS = 200;

    /** How long a thread looks for work after its last task before it sleeps. */
    private final long spinNanos;

    private final Thread[] threads;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedDeque<Thread> sleeping = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;
    /** Until when ({@link System#nanoTime}) a thread that wakes wakes two more: a copy is on its way. */
    private volatile long rousing;

    Crew(int size) {
        this(size, SPIN_MICROS * 1000);
    }

    Crew(int size, long spinNanos) {
        this.spinNanos = spinNanos;
        threads = new Thread[size];
        for (int i = 0; i < size; i++) {
            Thread t = new Thread(this::work, "acc4j staging " + i);
            t.setDaemon(true);
            threads[i] = t;
        }
        for (Thread t : threads) {
            t.start();
        }
    }

    /** The threads. */
    int size() {
        return threads.length;
    }

    @Override
    public void execute(Runnable task) {
        if (closed) {
            throw new java.util.concurrent.RejectedExecutionException("the staging threads are closed");
        }
        tasks.add(task);
        wakeOne();
    }

    /**
     * Wakes the sleeping threads ahead of a copy that is coming (after an allocation, say), so that its pieces find
     * them looking for work: this wakes one, and each thread that wakes wakes two more, the caller's cost staying one
     * wake. Returns at once.
     */
    void rouse() {
        if (!sleeping.isEmpty()) {
            rousing = System.nanoTime() + spinNanos;
            wakeOne();
        }
    }

    /** Threads asleep now. */
    int asleep() {
        return sleeping.size();
    }

    private void wakeOne() {
        Thread t = sleeping.poll();
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void work() {
        long idleSince = System.nanoTime();
        while (!closed) {
            Runnable task = tasks.poll();
            if (task != null) {
                if (!tasks.isEmpty()) {
                    wakeOne();
                }
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    // a task reports its own failures; nothing may end the thread
                }
                idleSince = System.nanoTime();
            } else if (System.nanoTime() - idleSince < spinNanos) {
                Thread.onSpinWait();
            } else {
                Thread self = Thread.currentThread();
                sleeping.push(self);
                // a task queued before the push found no one to wake: look again before sleeping
                if (tasks.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                sleeping.remove(self);
                idleSince = System.nanoTime();
                if (idleSince - rousing < 0) {
                    wakeOne();
                    wakeOne();
                }
            }
        }
    }

    /** Ends the threads after the tasks they are running; tasks not started are dropped. */
    @Override
    public void close() {
        closed = true;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
    }
}
