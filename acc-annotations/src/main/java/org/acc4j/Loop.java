package org.acc4j;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The OpenACC {@code loop} directive, written on a for-loop's index variable:
 * <pre>{@code
 * for (@Loop(gang = 16) int i = 1; i < n - 1; i++)
 *   for (@Loop(vector = 128) int j = 1; j < n - 1; j++) ...
 * }</pre>
 *
 * <p>javac keeps this TYPE_USE annotation in the class file (a RuntimeVisibleTypeAnnotations entry of
 * target LOCAL_VARIABLE, carrying the variable's slot and code range) even without {@code -g}, which is how
 * the compiler finds it.
 *
 * <p>Each of {@link #gang()}, {@link #worker()} and {@link #vector()} is {@link #OFF} (absent),
 * {@link #AUTO} (present, size chosen by the runtime) or a positive size.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE_USE)
public @interface Loop {
    /** The level is absent from this loop. */
    int OFF = -1;
    /** The level is present and its size is chosen by the runtime. */
    int AUTO = 0;

    /** Gang parallelism (thread blocks): {@link #OFF}, {@link #AUTO} or the number of gangs. */
    int gang() default OFF;

    /** Worker parallelism: {@link #OFF}, {@link #AUTO} or the number of workers. */
    int worker() default OFF;

    /** Vector parallelism (threads of a block): {@link #OFF}, {@link #AUTO} or the vector length. */
    int vector() default OFF;

    /** The loop runs sequentially (in each thread, when nested in a parallel loop). */
    boolean seq() default false;

    /** The user asserts that the iterations are independent; the compiler's dependence test is skipped. */
    boolean independent() default false;

    /** How many tightly nested loops, starting with this one, form one iteration space. */
    int collapse() default 1;

    /**
     * OpenACC's {@code reduction} clause: {@code "op:variable"}, several separated by commas ({@code "+:sum, max:m"}),
     * op one of {@code + * max min & | ^ && ||}. Unmarked accumulations are found without it; the clause makes the
     * compiler check that the named local is one. Naming locals needs their names in the class file ({@code javac -g}).
     */
    String reduction() default "";

    /**
     * How a parallel loop's iterations may add into array elements chosen through an index array
     * ({@code res[c1[e]] += f}, {@code bins[data[i]]++}), which two iterations may share.
     */
    enum Increments {
        /**
         * No strategy named (the default): the compiler takes the one that keeps Java's results bit for bit where one
         * applies: atomic adds when every such increment is of an {@code int} or {@code long}, else a colouring in which
         * each element's increments keep the loop's order ({@link org.acc4j.Colouring#ofRangeInOrder}); otherwise the
         * loop stays on the host saying which write races.
         */
        NONE,
        /**
         * Each read-modify-write {@code a[m[i]] += v} ({@code -=}, {@code ++}, {@code --}) of an {@code int},
         * {@code long}, {@code float} or {@code double} element whose subscript is read from memory becomes an atomic
         * add, as {@link Acc#atomicAdd} would do. Float sums then come out in the device's order.
         */
        ATOMIC,
        /**
         * Colouring: the runtime colours the iterations so that no two iterations of a colour reach the same element
         * through the index arrays ({@link Colouring}, greedy, at most {@link Colouring#MAX_COLOURS} colours), and
         * launches colour by colour, each launch over that colour's iterations with plain adds. The subscript of each
         * increment is {@code m[i]} or {@code a*m[i] + k} ({@code 0 <= k < a}, one {@code a} per array) for an index
         * array {@code m} read at the loop's index {@code i}; the colouring is kept while the index arrays are the same
         * arrays with the same contents. Float sums come out in another order than Java's, the same in every run.
         * Only on the outer loop of a nest.
         */
        COLOUR,
        /**
         * The runtime's choice between {@link #ATOMIC} and {@link #COLOUR}, given in the compile report with its
         * reason: atomics where every increment is of an {@code int}, {@code long}, {@code float} or {@code double}
         * (which the device adds atomically in one instruction); colouring otherwise, or where the loop's increments do
         * not fit atomics.
         */
        AUTO
    }

    /** The strategy for indirect increments in this loop; {@link Increments#NONE} by default. */
    Increments increments() default Increments.NONE;
}
