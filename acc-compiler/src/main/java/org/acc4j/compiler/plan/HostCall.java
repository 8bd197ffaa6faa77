package org.acc4j.compiler.plan;

import java.util.function.Function;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.RangeCheck;

/**
 * The host's side of one call of a compiled method ({@link MethodLaunch#begin}): the values of its arguments and
 * fields, what each region's loop bounds evaluate to before anything is launched, and, while {@link MethodLaunch#run}
 * drives the call, the host's values at the loop being launched. One per call, used by one thread.
 */
public final class HostCall {
    private final MethodLaunch method;
    private final ValueReader reader;
    private final Object self;
    private final Object[] args;
    private final Function<ArrayRef.Source, Object> sources = this::source;
    /** Per region: the host's values at its loop before anything is launched, its trip count and lower bound. */
    final Evaluator[] before;
    final long[] trips;
    final long[] lowers;
    /** Why a launch check failed, or null. */
    String refusal;
    /** The host program's values while {@link MethodLaunch#run} drives the call. */
    private Evaluator current;
    private Object[] arrays;
    private Function<ArrayRef, Object> arrayOf;
    private RowLengths rows;
    private RangeCheck.RowLengths rowLengths;

    HostCall(MethodLaunch method, ValueReader reader, Object self, Object[] args) {
        this.method = method;
        this.reader = reader;
        this.self = self;
        this.args = args;
        int n = method.kernels().size();
        this.before = new Evaluator[n];
        this.trips = new long[n];
        this.lowers = new long[n];
    }

    private Object source(ArrayRef.Source s) {
        if (s instanceof ArrayRef.Parameter p) {
            return args[p.index()];
        }
        return reader.value(method.field(s), self, args);
    }

    /** A fresh evaluator holding the call's scalar arguments. */
    Evaluator evaluator() {
        Evaluator ev = new Evaluator(sources);
        method.bindArguments(ev, args);
        return ev;
    }

    /** Why the call must run on the host (a launch check failed for its values), or null when it may launch. */
    public String refusal() {
        return refusal;
    }

    /**
     * Region {@code k}'s trip count evaluated before anything is launched, or -1 when it depends on device data or
     * the region is evaluated only at its launch (it has no launch checks and no implicit copyout needs its coverage).
     */
    public long trip(int k) {
        return trips[k];
    }

    void current(Evaluator ev) {
        current = ev;
    }

    Evaluator current() {
        if (current == null) {
            throw new IllegalStateException("no launch of " + method.displayName() + " is under way");
        }
        return current;
    }

    /** The proofs' view of the call's arrays, by the compiler's names for them. */
    Function<ArrayRef, Object> arrays(Object[] bound) {
        arrays = bound;
        if (arrayOf == null) {
            arrayOf = ref -> {
                int i = method.arrayIndex(ref);
                return i < 0 ? null : arrays[i];
            };
        }
        return arrayOf;
    }

    RangeCheck.RowLengths rowLengths(RowLengths known) {
        rows = known;
        if (rowLengths == null) {
            rowLengths = rank2 -> rows.least(rank2);
        }
        return rowLengths;
    }
}
