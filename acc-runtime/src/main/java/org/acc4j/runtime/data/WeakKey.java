package org.acc4j.runtime.data;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * A host array held weakly and compared by identity, never by {@code equals}: the key of the present table's entries
 * and of the arrays a device loss left stale. A cleared key equals only itself, so it can still be removed.
 */
final class WeakKey extends WeakReference<Object> {

    private final int hash;

    /** A key for {@code array}; {@code queue} (null for a key only looked up with) is told when it is collected. */
    WeakKey(Object array, ReferenceQueue<Object> queue) {
        super(array, queue);
        this.hash = System.identityHashCode(array);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof WeakKey key) || key.hash != hash) {
            return false;
        }
        Object referent = get();
        return referent != null && referent == key.get();
    }
}
