package org.acc4j.runtime.data;

import java.util.IdentityHashMap;
import java.util.List;

/**
 * Checks the arrays one call binds before they go to the device: none may be null, no row of a
 * two-dimensional array may be null, and no host array the call writes may be reachable in two places
 * (two names for one array, two rows of one array that are the same array, a row that is also another
 * bound array or a row of one). The present table gives each host array one device buffer, so such
 * aliases would share it while the kernel's threads write it in an order Java would not. Sharing among
 * arrays the call only reads is fine, and so is a row of a written two-dimensional array outside the rows the
 * call writes ({@link Use#writtenRows}): LINPACK's {@code col_k = a[k]} read while rows {@code k+1..n-1} are
 * updated. Stateless.
 */
public final class Aliasing {

    private Aliasing() {
    }

    /**
     * One array a call binds.
     *
     * @param name    its name in the method, for messages
     * @param array   the value at the call (a primitive array of one or two dimensions, or null)
     * @param written whether the call writes its elements (for two dimensions, the rows' elements)
     * @param writtenRows for a written two-dimensional array, the least and greatest row the call may write, or null
     *     for any row
     */
    public record Use(String name, Object array, boolean written, long[] writtenRows) {
        public Use(String name, Object array, boolean written) {
            this(name, array, written, null);
        }

        /** Whether the call may write the elements at {@code row} ({@code < 0}: the whole array). */
        boolean writes(int row) {
            return written && (row < 0 || writtenRows == null || row >= writtenRows[0] && row <= writtenRows[1]);
        }
    }

    /** Where a host array is reachable: a whole bound array ({@code row < 0}) or row {@code row} of one. */
    private record Place(Use use, int row) {
        String describe() {
            return row < 0 ? "the array " + use.name() : "row " + row + " of " + use.name();
        }
    }

    /**
     * Why the call cannot run on the device as bound, or null when it can. The reasons read, for example,
     * {@code the array a is null}, {@code row 3 of a is null}, {@code rows 3 and 7 of a are the same array,
     * and the region writes a}, {@code row 2 of a is also the array b, and the region writes b}, and, for two
     * one-dimensional names, {@code the same array is both x and y, and the region writes it}.
     */
    public static String problem(List<Use> uses) {
        return problem(uses, null);
    }

    /**
     * Whether the bound {@code arrays} certainly have no problem, found without allocating: none is null, {@code known}
     * vouches for each as {@link #problem(List, Known)} asks, and no two are the same array (compared pair by pair, up
     * to 16 arrays). False means only that {@link #problem(List, Known)} must look.
     */
    public static boolean distinct(Object[] arrays, Known known) {
        int n = arrays.length;
        if (n > 16) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            Object a = arrays[i];
            if (a == null || (HostArrays.isRank2(a) ? !known.ownRows(a) : known.mayBeRow(a))) {
                return false;
            }
            for (int j = 0; j < i; j++) {
                if (arrays[j] == a) {
                    return false;
                }
            }
        }
        return true;
    }

    /** What the present table knows of bound arrays, so that a call on present rows need not visit them. */
    public interface Known {
        /**
         * Whether this two-dimensional array's rows are known distinct, none null, and each listed by its own
         * present table alone ({@link PresentTable#ownRows}).
         */
        boolean ownRows(Object rank2);

        /** Whether this one-dimensional array may be a row of a bound two-dimensional array. */
        boolean mayBeRow(Object rank1);
    }

    /**
     * {@link #problem(List)}, visiting no row when {@code known} (null for none) vouches for every two-dimensional
     * array and clears every one-dimensional one: the rows then cannot meet each other or another bound array, and
     * only the bound arrays themselves are compared. Otherwise every row is visited, as {@link #problem(List)} does.
     */
    public static String problem(List<Use> uses, Known known) {
        if (known != null && vouched(uses, known)) {
            IdentityHashMap<Object, Place> seen = new IdentityHashMap<>();
            for (Use use : uses) {
                if (use.array() == null) {
                    return "the array " + use.name() + " is null";
                }
                String clash = place(seen, use.array(), new Place(use, -1));
                if (clash != null) {
                    return clash;
                }
            }
            return null;
        }
        IdentityHashMap<Object, Place> seen = new IdentityHashMap<>();
        for (Use use : uses) {
            if (use.array() == null) {
                return "the array " + use.name() + " is null";
            }
            int nullRow = HostArrays.nullRow(use.array());
            if (nullRow >= 0) {
                return "row " + nullRow + " of " + use.name() + " is null";
            }
        }
        if (!anyTwice(uses)) {
            // the common case: no array or row is reachable twice, so nothing is shared, written or not
            return null;
        }
        for (Use use : uses) {
            String clash = place(seen, use.array(), new Place(use, -1));
            if (clash == null && HostArrays.isRank2(use.array())) {
                Object[] rows = (Object[]) use.array();
                for (int i = 0; i < rows.length && clash == null; i++) {
                    clash = place(seen, rows[i], new Place(use, i));
                }
            }
            if (clash != null) {
                return clash;
            }
        }
        return null;
    }

    /**
     * Whether some host array is reachable twice among the bound arrays and their rows: one pass with an identity
     * table of open addressing, one allocation whatever the number of rows (the detailed pass, which says which and
     * whether it matters, runs only then).
     */
    private static boolean anyTwice(List<Use> uses) {
        int count = 0;
        for (Use use : uses) {
            count += 1 + (HostArrays.isRank2(use.array()) ? ((Object[]) use.array()).length : 0);
        }
        Object[] slots = new Object[Integer.highestOneBit(Math.max(4, count) * 2 - 1) << 1];
        int mask = slots.length - 1;
        for (Use use : uses) {
            if (!insert(slots, mask, use.array())) {
                return true;
            }
            if (HostArrays.isRank2(use.array())) {
                for (Object row : (Object[]) use.array()) {
                    if (!insert(slots, mask, row)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Adds {@code x} to the identity table; false when it is there already. */
    private static boolean insert(Object[] slots, int mask, Object x) {
        int h = System.identityHashCode(x) & mask;
        while (slots[h] != null) {
            if (slots[h] == x) {
                return false;
            }
            h = (h + 1) & mask;
        }
        slots[h] = x;
        return true;
    }

    private static boolean vouched(List<Use> uses, Known known) {
        for (Use use : uses) {
            Object a = use.array();
            if (a == null) {
                continue;
            }
            if (HostArrays.isRank2(a) ? !known.ownRows(a) : known.mayBeRow(a)) {
                return false;
            }
        }
        return true;
    }

    /** Records {@code here} for {@code array}; the reason when an earlier place holds it and either is written. */
    private static String place(IdentityHashMap<Object, Place> seen, Object array, Place here) {
        Place first = seen.putIfAbsent(array, here);
        // comparing with the first place suffices: a written place meets it, or is it
        if (first == null || !(first.use().writes(first.row()) || here.use().writes(here.row()))) {
            return null;
        }
        Use a = first.use();
        Use b = here.use();
        if (first.row() < 0 && here.row() < 0) {
            return "the same array is both " + a.name() + " and " + b.name() + ", and the region writes it";
        }
        boolean aWrites = a.writes(first.row());
        boolean bWrites = b.writes(here.row());
        String writes = aWrites && bWrites && a != b ? a.name() + " and " + b.name() : aWrites ? a.name() : b.name();
        if (a == b) {
            return "rows " + first.row() + " and " + here.row() + " of " + a.name()
                    + " are the same array, and the region writes " + writes;
        }
        return first.describe() + " is also " + here.describe()
                + ", and the region writes " + writes;
    }
}
