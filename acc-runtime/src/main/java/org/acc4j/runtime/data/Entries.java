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

    /** The entry of {@code array}, or null when it is not present. */
    Entry find(Object array) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        // a temporary key without a queue; the caller's reference keeps the referent alive
        return map.get(new WeakKey(array, null));
    }

    /** Records a new entry for {@code array}: its buffer, and for a two-dimensional array its rows and entries. */
    Entry record(Object array, Buffer buffer, Object[] rows, Entry[] rowEntries) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        WeakKey key = new WeakKey(array, collected);
        Entry entry = new Entry(lock, key, buffer, array, rows, rowEntries);
        map.put(key, entry);
        return entry;
    }

    /**
     * Takes {@code entry} out of the map without clearing its key, to be {@linkplain #attach attached} again ({@link
     * KeptLayouts}); the collector may still queue the key, which then finds no entry.
     */
    void detach(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        map.remove(entry.key);
    }

    /** Puts a {@linkplain #detach detached} entry back under its own key. */
    void attach(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        map.put(entry.key, entry);
    }

    /** Removes {@code entry} and clears its key (a cleared key is not queued: the collector will not report it). */
    void remove(Entry entry) {
        assert Thread.holdsLock(lock) : "the present table's lock";
        map.remove(entry.key);
        entry.key.clear();
    }

    /** The entries, live: to be changed only through this class. */
    Collection<Entry> all() {
        return map.values();
    }

    /** A copy of the entries, for loops that remove. */
    List<Entry> snapshot() {
        return List.copyOf(map.values());
    }

    int size() {
        return map.size();
    }

    /** The next entry whose array the collector reclaimed, or null when none is waiting. */
    Entry nextCollected() {
        for (Reference<?> ref = collected.poll(); ref != null; ref = collected.poll()) {
            // a cleared key equals only itself; explicitly removed keys were cleared, never queued
            Entry entry = map.get(ref);
            if (entry != null) {
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
    }
}
