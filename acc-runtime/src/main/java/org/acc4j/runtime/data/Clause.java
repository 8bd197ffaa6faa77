package org.acc4j.runtime.data;

/**
 * OpenACC data clauses, as far as the present table needs them.
 *
 * <ul>
 *   <li>{@link #COPYIN}: allocate and copy to the device on entry when absent.</li>
 *   <li>{@link #COPYOUT}: allocate (zero-filled here) on entry when absent; copy back when the
 *       last reference goes.</li>
 *   <li>{@link #COPY}: both of the above.</li>
 *   <li>{@link #CREATE}: allocate (zero-filled here) on entry; never copy.</li>
 *   <li>{@link #PRESENT}: the data must already be on the device.</li>
 *   <li>{@link #DELETE}: on a dynamic exit, free without copying back.</li>
 * </ul>
 */
public enum Clause {
    COPYIN, COPYOUT, COPY, CREATE, PRESENT, DELETE;

    /** Whether data is copied to the device when it is allocated on entry. */
    boolean uploadsOnEntry() {
        return this == COPYIN || this == COPY;
    }

    /** Whether data is copied back when the last reference is dropped at exit. */
    boolean downloadsOnExit() {
        return this == COPYOUT || this == COPY;
    }
}
