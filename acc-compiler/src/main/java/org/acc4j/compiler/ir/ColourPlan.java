package org.acc4j.compiler.ir;

import java.util.List;

/**
 * A region whose outer loop runs colour by colour ({@code @Loop(increments = COLOUR)}, or {@code AUTO} when it
 * chose colouring): the runtime colours the loop's iterations so that no two of a colour reach one element through
 * the {@link #maps}, and launches once per colour. After lowering, the region's loop runs {@code t} over
 * {@code [start, end)} and sets the original index {@link #item} to {@code order[t]} first; the runtime gives the
 * colour's bounds as host values ({@link Region#hostVars}) and {@code order} as the array {@link #order}.
 *
 * @param item the original loop's index ({@code e} of {@code res[c1[e]] += f})
 * @param lower the original loop's first index
 * @param bound the original loop's bound, exclusive ({@code <}) or inclusive ({@code <=}, see {@link #inclusive})
 * @param inclusive whether the original loop tests {@code <=}
 * @param maps the index arrays the increments go through, read at {@code item}, in order of first use
 * @param targets the arrays incremented through them, each with its subscript's scale {@code a} (of {@code a*m[e] + k})
 * @param start the local holding a colour's first position in {@code order}
 * @param end the local holding a colour's end (exclusive) in {@code order}
 * @param order the colour order: the items, colour by colour
 * @param why the strategy's reason, for the report
 * @param lowered whether the loop has been rewritten over {@code order} (after the parallelism decision)
 * @param inOrder whether the colouring keeps each element's increments in the loop's order (an iteration's colour
 *     follows every colour of the iterations before it that reach one of its elements), so that every sum is Java's
 *     bit for bit: the colouring of a loop with no {@code increments} element
 */
public record ColourPlan(Var item, Expr lower, Expr bound, boolean inclusive, List<ArrayRef> maps,
                         List<Target> targets, Var start, Var end, ArrayRef order, String why, boolean lowered,
                         boolean inOrder) {
    public ColourPlan {
        maps = List.copyOf(maps);
        targets = List.copyOf(targets);
    }

    /** An array incremented at {@code scale * m[item] + k} ({@code 0 <= k < scale}) for maps {@code m}. */
    public record Target(ArrayRef array, int scale) {
    }

    /** The same plan, its loop rewritten over {@link #order}. */
    public ColourPlan asLowered() {
        return new ColourPlan(item, lower, bound, inclusive, maps, targets, start, end, order, why, true, inOrder);
    }

    /** Whether {@code a} is one of the incremented arrays. */
    public boolean incremented(ArrayRef a) {
        return targets.stream().anyMatch(t -> t.array().equals(a));
    }

    /**
     * The most elements a map may name for its iteration to touch only elements of the incremented arrays: the
     * largest {@code ceil(length / scale)} over the targets, given their lengths in order. Values outside
     * {@code [0, limit)} fail Java's bounds check in the kernel, and are not coloured.
     */
    public int limit(int[] lengths) {
        long most = 0;
        for (int i = 0; i < targets.size(); i++) {
            int s = targets.get(i).scale();
            most = Math.max(most, (lengths[i] + (long) s - 1) / s);
        }
        return (int) most;
    }
}
