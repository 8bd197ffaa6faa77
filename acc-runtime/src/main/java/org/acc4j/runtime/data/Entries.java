package org.acc4j.runtime.data;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The present table's entries, keyed by their host arrays held weakly ({@link WeakKey}), and the queue on which the
 * garbage collector reports arrays reclaimed while present, whose buffers the table then frees on a caller's thread.
 *
 * <p>Invariants: an entry is in the map under its own key until it is {@linkplain #remove removed}, which clears
 * the key, so that a removed array is never reported as reclaimed; entries never reference their array. Used only
 * under the present table's lock (asserted where entries are found, recorded and removed).
 */
final class Entries {

    private final Object lock;
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private final Map<WeakKey, Entry> map = new HashMap<>();

    /** Entries locked by {@code lock}, the present table. */
    Entries(Object lock) {
        this.lock = lock;
    }

    /** How many entries in the map are {@linkplain #keep kept}, not present. */
    private int kept;

    /** The entry of {@code array}, or null when it is not present (a {@linkplain #keep kept} entry is not). */
    Entry find(Object array) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        // one probe, reused under the table's lock: a look-up allocates no reference object
        probe.array = array;
        probe.hash = System.identityHashCode(array);
        Entry e = map.get(probe);
        probe.array = null;
        return e == null || e.keptBy != null ? null : e;
    }

    private final Probe probe = new Probe();

    /**
     * A look-up key for the map of {@link WeakKey}s: equal to the key of the same array (the map compares a looked-up
     * key with its own keys by the looked-up key's {@code equals}), and never stored in the map.
     */
    private static final class Probe {
        Object array;
        int hash;

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof WeakKey key && key.hashCode() == hash && array != null && key.get() == array;
        }
    }

    /**
     * Records a new entry for {@code array}: its buffer, and for a two-dimensional array its rows and entries. A kept
     * entry of {@code array} leaves the map, and its layout can no longer be taken back ({@link Entry#keptBroken}).
     */
    Entry record(Object array, Buffer buffer, Object[] rows, Entry[] rowEntries) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        WeakKey key = new WeakKey(array, collected);
        Entry entry = new Entry(lock, key, buffer, array, rows, rowEntries);
        // removed first, so that the map holds the new key, never a kept entry's (which its layout may clear)
        Entry old = map.remove(key);
        if (old != null && old.keptBy != null) {
            old.keptBy.keptBroken = true;
            old.keptBy = null;
            kept--;
        }
        map.put(key, entry);
        return entry;
    }

    /**
     * Marks {@code entry}, in the map, as part of the layout {@code owner} kept out of the table ({@link KeptLayouts}):
     * it stays in the map under its key but is not present ({@link #find} and the views pass over it).
     */
    void keep(Entry entry, Entry owner) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        entry.keptBy = owner;
        kept++;
    }

    /** Makes a {@linkplain #keep kept} entry present again. */
    void unkeep(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        entry.keptBy = null;
        kept--;
    }

    /** Takes a kept entry out of the map, if the map still holds it; its key is not cleared. */
    void dropKept(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        if (entry.keptBy == null) {
            return;
        }
        if (map.get(entry.key) == entry) {
            map.remove(entry.key);
        }
        entry.keptBy = null;
        kept--;
    }

    /** Removes {@code entry} and clears its key (a cleared key is not queued: the collector will not report it). */
    void remove(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        map.remove(entry.key);
        entry.key.clear();
    }

    /** The present entries (kept ones left out), live when none is kept: to be changed only through this class. */
    Collection<Entry> all() {
        return kept == 0 ? map.values() : snapshot();
    }

    /** A copy of the present entries, for loops that remove. */
    List<Entry> snapshot() {
        List<Entry> out = new java.util.ArrayList<>(map.size());
        for (Entry e : map.values()) {
            if (e.keptBy == null) {
                out.add(e);
            }
        }
        return out;
    }

    int size() {
        return map.size() - kept;
    }

    /** The next entry whose array the collector reclaimed, or null when none is waiting. */
    Entry nextCollected() {
        for (Reference<?> ref = collected.poll(); ref != null; ref = collected.poll()) {
            // a cleared key equals only itself; explicitly removed keys were cleared, never queued
            Entry entry = map.get(ref);
            // a kept layout whose array was reclaimed is freed by KeptLayouts when it next looks
            if (entry != null && entry.keptBy == null) {
                return entry;
            }
        }
        return null;
    }

    /** Forgets every array the collector reported so far (their entries are dealt with by the caller). */
    void forgetCollected() {
        while (collected.poll() != null) {
            // nothing to free here
        }
    }

    /** Removes every entry, clearing its key. */
    void clear() {
        for (Entry entry : map.values()) {
            entry.key.clear();
        }
        map.clear();
        kept = 0;
    }
}
