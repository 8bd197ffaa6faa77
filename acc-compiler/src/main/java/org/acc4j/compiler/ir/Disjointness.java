package org.acc4j.compiler.ir;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The condition under which the parallel iterations of a nest write disjoint elements of one array: its
 * subscript {@code Σ c_k * i_k + rest} (the row subscript counting 2^32 times the column's) takes a different
 * value for every combination of the loops' iterations. With {@code i_k = lower_k + n_k * step_k}, {@code n_k} from 0
 * to {@code trip_k - 1}, the test is the mixed-radix one on the {@code n_k}: sorted by {@code |c_k * step_k|}, each
 * exceeds the reach {@code Σ |c_l * step_l| * (trip_l - 1)} of the smaller ones ({@code a[i]} and {@code a[i + 1]}
 * of a loop stepping by 2 are disjoint). Loops that run at most once drop out; a parallel loop whose index is absent
 * fails.
 *
 * <p>An array accessed at several subscripts that differ only in their invariant parts ({@code data[i]},
 * {@code data[i + 1]}, {@code data[j]} with {@code i = 4*dual*k}, {@code j = i + 2*dual}, as an FFT's butterfly
 * does) has those parts as {@code offsets}: they count as one more term, of coefficient 1 and span
 * {@code max - min} of their values, so that the accesses of two different iterations never meet.
 *
 * <p>Evaluated by the compiler when everything is constant, else by the runtime before each launch with the
 * call's values (a failure then runs the call on the host).
 *
 * @param array the written array
 * @param terms one per loop whose index the subscript may use
 * @param offsets the invariant parts of the column subscripts accessed (empty for one subscript)
 * @param line the source line of the store
 */
public record Disjointness(ArrayRef array, List<Term> terms, List<Expr> offsets, int line) {
    public Disjointness {
        terms = List.copyOf(terms);
        offsets = List.copyOf(offsets);
    }

    public Disjointness(ArrayRef array, List<Term> terms, int line) {
        this(array, terms, List.of(), line);
    }

    /**
     * One loop of the nest.
     *
     * @param coefficient the index's coefficient (invariant), or null when the index does not appear
     * @param rowScale 2^32 for a term of a two-dimensional array's row subscript, else 1
     */
    public record Term(Stmt.For loop, Expr coefficient, long rowScale, boolean parallel) {
    }

    private static final BigInteger LIMIT = BigInteger.ONE.shiftLeft(32);

    /**
     * Null when the writes are disjoint for the values {@code ev} gives, else the reason.
     *
     * @throws Evaluator.NotEvaluable when a coefficient or a loop's bounds cannot be evaluated
     */
    public String check(Evaluator ev) {
        record Part(Term term, BigInteger c, BigInteger span) {
        }
        List<Part> parts = new ArrayList<>();
        for (Term t : terms) {
            Stmt.For f = t.loop;
            long trip = Evaluator.tripCount(ev.evalLong(f.lower()), f.cond(), ev.evalLong(f.bound()), f.step());
            if (trip <= 1) {
                continue;
            }
            long c = t.coefficient == null ? 0 : ev.evalLong(t.coefficient);
            if (c == 0) {
                if (t.parallel) {
                    return "every iteration of the loop over " + f.index().name() + " writes the same elements of "
                            + array.name();
                }
                continue;
            }
            // the index takes lower + k * step for k in [0, trip): the subscript's coefficient of k is c * |step|
            BigInteger span = BigInteger.valueOf(trip - 1);
            parts.add(new Part(t, BigInteger.valueOf(c).abs().multiply(BigInteger.valueOf(Math.abs(f.step())))
                    .multiply(BigInteger.valueOf(t.rowScale)), span));
        }
        if (offsets.size() > 1) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (Expr o : offsets) {
                long v = ev.evalLong(o);
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            if (max > min) {
                parts.add(new Part(null, BigInteger.ONE, BigInteger.valueOf(max).subtract(BigInteger.valueOf(min))));
            }
        }
        parts.sort(Comparator.comparing(Part::c));
        BigInteger reachRow = BigInteger.ZERO;
        BigInteger reach = BigInteger.ZERO;
        for (Part p : parts) {
            if (p.c.compareTo(reach) <= 0) {
                return "the subscript of " + array.name() + " at line " + line + " may repeat: the coefficient "
                        + p.c + " of " + (p.term == null ? "the offsets between its subscripts"
                        : p.term.loop.index().name()) + " does not exceed the reach " + reach + " of the smaller terms"
                        + (offsets.size() > 1 && p.term != null ? " (its subscripts' offsets included)" : "");
            }
            reach = reach.add(p.c.multiply(p.span));
            if (p.term == null || p.term.rowScale == 1) {
                reachRow = reachRow.add(p.c.multiply(p.span));
            }
        }
        if (reachRow.compareTo(LIMIT) >= 0) {
            return "the subscript of " + array.name() + " at line " + line + " spans more than 2^32 values";
        }
        return null;
    }
}
