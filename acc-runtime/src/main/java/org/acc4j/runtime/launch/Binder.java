package org.acc4j.runtime.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.plan.ArrayUse;
import org.acc4j.compiler.plan.AsyncClause;
import org.acc4j.compiler.plan.Gathering;
import org.acc4j.compiler.plan.HostCall;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.RowLengths;
import org.acc4j.runtime.data.Aliasing;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.PresentTable;

/**
 * The launcher's decisions about a call before anything is launched: the queue it goes on, its arrays bound by
 * position (none null, none lost to a device fault, none reachable twice where the method writes one), the host's
 * launch checks, each data clause for this call, and the rows' lengths the bounds proofs may take from the present
 * table. One per launcher, used under its lock.
 */
final class Binder {
    private final PresentTable table;

    Binder(PresentTable table) {
        this.table = table;
    }

    /** The fields of arrays' objects the last {@link #bind} gathered, or null for none. */
    private Gathering gathered;

    /** The fields of arrays' objects the last {@link #bind} gathered (to scatter after the call), or null; forgotten. */
    Gathering takeGathered() {
        Gathering g = gathered;
        gathered = null;
        return g;
    }

    /** What the present table knows of bound arrays' rows (see {@link Aliasing.Known}). */
    private final Aliasing.Known knownRows = new Aliasing.Known() {
        @Override
        public boolean ownRows(Object rank2) {
            return table.ownRows(rank2);
        }

        @Override
        public boolean mayBeRow(Object rank1) {
            return table.listedAsRow(rank1);
        }
    };

    /**
     * The row lengths of one launch's proofs: for a present array whose rows are its table's, the shortest row's
     * length the table noted (asked once per array and launch), so no row is read; for any other the proof reads them.
     * One per launcher, emptied for each launch ({@link #fresh}).
     */
    private final class LaunchRows implements RowLengths {
        /** Made at the first two-dimensional array: a launch of one-dimensional arrays allocates no map. */
        private Map<Object, Integer> known;

        LaunchRows fresh() {
            if (known != null) {
                known.clear();
            }
            return this;
        }

        @Override
        public int least(Object rows) {
            if (known == null) {
                known = new java.util.IdentityHashMap<>(4);
            }
            return known.computeIfAbsent(rows, table::leastRowLength);
        }
    }

    private final LaunchRows rowLengths = new LaunchRows();

    /** The row lengths of one launch's proofs, emptied for it. */
    RowLengths rowLengths() {
        return rowLengths.fresh();
    }

    /**
     * The call's arrays, by {@link ArrayUse#index()}, into {@code into} (the method's buffer for a synchronous call,
     * cleared at its end) when given, else into a new array; throws {@link Launcher.HostInstead} for a null array or row and for
     * an array reachable twice where the method writes one, having cleared {@code into}.
     */
    Object[] bind(OffloadedMethod m, Object self, Object[] args, Object[] into) throws Launcher.HostInstead {
        return bind(m, self, args, into, null);
    }

    /**
     * {@link #bind(OffloadedMethod, Object, Object[], Object[])} for the call {@code call} begun already (null for
     * none), whose host values tell which rows of a written two-dimensional array its kernel may write.
     */
    Object[] bind(OffloadedMethod m, Object self, Object[] args, Object[] into, HostCall call)
            throws Launcher.HostInstead {
        List<ArrayUse> used = m.plan().arrays();
        Object[] arrays = into != null ? into : new Object[used.size()];
        try {
            bindInto(m, self, args, used, arrays, call);
        } catch (Launcher.HostInstead | RuntimeException | Error e) {
            java.util.Arrays.fill(arrays, null);
            throw e;
        }
        return arrays;
    }

    private void bindInto(OffloadedMethod m, Object self, Object[] args, List<ArrayUse> used, Object[] arrays,
                          HostCall call) throws Launcher.HostInstead {
        boolean made = false;
        gathered = null;
        for (int i = 0; i < used.size(); i++) {
            ArrayUse a = used.get(i);
            if (a.source() instanceof org.acc4j.compiler.plan.ValueSource.Made) {
                // made at the launch (a colour order)
                made = true;
                continue;
            }
            if (a.source() instanceof org.acc4j.compiler.plan.ValueSource.Gathered) {
                continue; // a field of an array's objects: made below
            }
            arrays[a.index()] = m.sources().value(a.source(), self, args);
        }
        gathered = gather(used, m.sources(), self, args, arrays);
        // arrays whose device-side changes an earlier fault lost: their host copies are stale
        for (Object value : arrays) {
            String lost = value == null ? null : table.lostArray(value);
            if (lost != null) {
                throw org.acc4j.runtime.cuda.DeviceLostException.array(m.displayName(), lost, null);
            }
        }
        // null arrays and rows; arrays (rank-2 rows included) reachable twice where the region writes one
        // rows present as one block and unchanged since are known distinct: no row is visited
        if (!made && Aliasing.distinct(arrays, knownRows)) {
            // the common case, with no list made: every array there, none twice, no row to visit
            return;
        }
        String problem = Aliasing.problem(uses(m, used, arrays, null), knownRows);
        if (problem != null && call != null) {
            // a row shared with another name may lie outside the rows the kernel writes: look again with those
            problem = Aliasing.problem(uses(m, used, arrays, call), knownRows);
        }
        if (problem != null) {
            throw new Launcher.HostInstead(problem);
        }
    }

    /** The bound arrays as {@link Aliasing} sees them; with {@code call}, each written 2D array's written rows. */
    private static List<Aliasing.Use> uses(OffloadedMethod m, List<ArrayUse> used, Object[] arrays, HostCall call) {
        List<Aliasing.Use> uses = new ArrayList<>(arrays.length);
        for (ArrayUse a : used) {
            if (!(a.source() instanceof org.acc4j.compiler.plan.ValueSource.Made)) {
                long[] rows = call != null && a.written() && a.dims() == 2 ? m.plan().writtenRows(a.index(), call)
                        : null;
                uses.add(new Aliasing.Use(a.name(), arrays[a.index()], a.written(), rows));
            }
        }
        return uses;
    }

    /**
     * The host's side of the call before anything is launched ({@link
     * org.acc4j.compiler.plan.MethodLaunch#begin}): each region's trip count and the checks the compiler left to the
     * launch; a failed check throws {@link Launcher.HostInstead}, and the call runs on the host.
     */
    static HostCall checkBeforeLaunch(OffloadedMethod m, Object self, Object[] args) throws Launcher.HostInstead {
        HostCall call = m.plan().begin(m.sources(), self, args);
        if (call.refusal() != null) {
            throw new Launcher.HostInstead(call.refusal());
        }
        return call;
    }

    /** The runtime clause of data clause {@code d} for this call (see {@link org.acc4j.compiler.plan.MethodLaunch#clause}). */
    static Clause clause(OffloadedMethod m, int d, Object array, HostCall call) {
        return switch (m.plan().clause(d, array, call)) {
            case COPYIN -> Clause.COPYIN;
            case COPYOUT -> Clause.COPYOUT;
            case COPY -> Clause.COPY;
            case CREATE -> Clause.CREATE;
            case PRESENT -> Clause.PRESENT;
        };
    }

    /** Whether {@code m}'s kernels use a field of an array's objects ({@link Gathering}). */
    static boolean gathers(OffloadedMethod m) {
        for (ArrayUse a : m.plan().arrays()) {
            if (a.source() instanceof org.acc4j.compiler.plan.ValueSource.Gathered) {
                return true;
            }
        }
        return false;
    }

    /**
     * The fields of arrays' objects among {@code used}, each gathered into its position of {@code into} once every such
     * array passed its checks ({@link Gathering}); null when there is none.
     *
     * @throws Launcher.HostInstead when a check fails (a null element, one object twice where a field is written)
     */
    static Gathering gather(List<ArrayUse> used, Sources sources, Object self, Object[] args, Object[] into)
            throws Launcher.HostInstead {
        Gathering g = null;
        for (ArrayUse a : used) {
            if (a.source() instanceof org.acc4j.compiler.plan.ValueSource.Gathered gs) {
                g = g != null ? g : new Gathering();
                String why = g.add(a.index(), gs, sources.value(gs, self, args), a.written(), sources::instanceField);
                if (why != null) {
                    throw new Launcher.HostInstead(why);
                }
            }
        }
        if (g != null) {
            String why = g.refusal();
            if (why != null) {
                throw new Launcher.HostInstead(why);
            }
            g.gather(into);
        }
        return g;
    }

    /** Whether array {@code index} of {@code m} stands for an array of objects' length alone ({@link Gathering}). */
    static boolean lengthOnly(OffloadedMethod m, int index) {
        return m.plan().arrays().get(index).source() instanceof org.acc4j.compiler.plan.ValueSource.Gathered g
                && g.field() == null;
    }

    /** A call whose data did not fit, before any of its kernels ran: it runs on the host instead. */
    static Launcher.HostInstead hostInstead(org.acc4j.runtime.data.OutOfDeviceMemoryException oom) {
        return new Launcher.HostInstead("not enough device memory: " + oom.getMessage().replace("acc4j: out of device memory: ",
                ""), "out of device memory");
    }

    /** The methods and reasons already told that their async clause is not followed. */
    private final java.util.Set<String> saidSync = new java.util.HashSet<>();

    /**
     * The queue of this call, or {@code ASYNC_SYNC} when it runs synchronously: no async clause, or one that cannot
     * be followed (said once per method and reason, as a warning).
     */
    int queueOf(OffloadedMethod m, Object[] args) {
        AsyncClause a = m.async();
        if (a.synchronous() && a.problem() == null) {
            return org.acc4j.Acc.ASYNC_SYNC;
        }
        String why = a.problem();
        int q = org.acc4j.Acc.ASYNC_SYNC;
        int line = m.plan().kernels().isEmpty() ? 0 : m.kernel(0).line();
        if (why == null) {
            try {
                q = a.queue(args);
            } catch (IllegalArgumentException e) {
                why = e.getMessage();
            }
        }
        if (why == null && q != org.acc4j.Acc.ASYNC_SYNC) {
            if (m.plan().returnsValue()) {
                why = "it returns a value, which the host needs when the call returns";
            } else if (gathers(m)) {
                why = "its kernels use fields of an array's objects, which go back into the objects when they end";
            } else {
                for (LaunchPlan k : m.plan().kernels()) {
                    if (k.reductions() > 0) {
                        why = "it has a reduction, whose result the host needs when the call returns";
                        line = k.line();
                        break;
                    }
                    if (k.scan()) {
                        why = "it has a scan, whose tile state one launch at a time uses";
                        line = k.line();
                        break;
                    }
                }
            }
        }
        if (why != null) {
            String kind = why.replaceAll("-?\\d+ is not a queue", "N is not a queue");
            if (saidSync.add(m.displayName() + "|" + kind)) {
                org.acc4j.runtime.Log.warning(m.displayName() + " (" + m.plan().sourceFile()
                        + (line > 0 ? ":" + line : "") + "): @Kernels(" + a.clause() + "): runs synchronously: " + why);
            }
            return org.acc4j.Acc.ASYNC_SYNC;
        }
        return q;
    }
}
