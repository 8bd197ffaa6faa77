package org.acc4j.runtime.transfer;

import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import org.acc4j.runtime.Log;

/**
 * At most {@code max} {@link Lane}s, opened when first needed and kept for reuse: the bound on the pinned memory that
 * staged copies hold. {@link #take} never waits: with every lane busy, or when the host refused to pin another one,
 * it returns null and the caller copies directly. A refusal is remembered until {@link #close} or {@link #abandon}.
 *
 * <p>{@link #close} frees the idle lanes, {@link #abandon} forgets them (their context is gone); either way the pool
 * starts afresh, and a lane taken before and handed back after is forgotten, never reused. Thread-safe.
 */
final class LanePool<D> {

    private final StagedCopy.Opener<D> opener;
    private final long slotBytes;
    private final int slots;
    private final int max;
    private final ArrayDeque<Lane<D>> idle = new ArrayDeque<>();
    /** Lanes handed out, with the generation they belong to. */
    private final Map<Lane<D>, Integer> busy = new IdentityHashMap<>();
    private int generation;
    private boolean refused;

    LanePool(StagedCopy.Opener<D> opener, long slotBytes, int slots, int max) {
        this.opener = opener;
        this.slotBytes = slotBytes;
        this.slots = slots;
        this.max = max;
    }

    /** An idle lane, a new one, or null when all {@code max} are busy or the host cannot pin another. */
    synchronized Lane<D> take() {
        Lane<D> lane = idle.poll();
        if (lane == null) {
            if (refused || busy.size() >= max) {
                return null;
            }
            try {
                lane = opener.open(slotBytes, slots);
            } catch (RuntimeException e) {
                refused = true;
                Log.debug("staged copies go direct: no pinned staging memory (" + e.getMessage() + ")");
                return null;
            }
        }
        busy.put(lane, generation);
        return lane;
    }

    /** Takes back a lane whose copies all completed, for reuse. */
    synchronized void give(Lane<D> lane) {
        Integer born = busy.remove(lane);
        if (born != null && born == generation) {
            idle.push(lane);
        } else {
            lane.abandon();
        }
    }

    /**
     * Takes back a lane whose transfer failed: waits for its queued copies, then frees it, or forgets it where
     * freeing fails too (a dead context). What goes wrong here is added to {@code failure}.
     */
    void discard(Lane<D> lane, Throwable failure) {
        boolean current;
        synchronized (this) {
            Integer born = busy.remove(lane);
            current = born != null && born == generation;
        }
        if (!current) {
            lane.abandon();
            return;
        }
        try {
            lane.drain();
        } catch (RuntimeException e) {
            suppress(failure, e);
        }
        try {
            lane.close();
        } catch (RuntimeException e) {
            suppress(failure, e);
            lane.abandon();
        }
    }

    /** Adds {@code e} to {@code failure} unless it is the same one again, as a sticky error may be. */
    private static void suppress(Throwable failure, Throwable e) {
        if (e != failure) {
            failure.addSuppressed(e);
        }
    }

    /** How many lanes exist: idle and busy. */
    synchronized int lanes() {
        return idle.size() + busy.size();
    }

    /** Frees the idle lanes and starts afresh; the first failure is thrown after all were tried. */
    synchronized void close() {
        RuntimeException failure = null;
        for (Lane<D> lane : idle) {
            try {
                lane.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        restart();
        if (failure != null) {
            throw failure;
        }
    }

    /** Forgets every lane without touching the device (its context was destroyed) and starts afresh. */
    synchronized void abandon() {
        idle.forEach(Lane::abandon);
        restart();
    }

    private void restart() {
        idle.clear();
        generation++;
        refused = false;
    }
}
