package org.acc4j.runtime.transfer;

import java.util.Arrays;
import java.util.Locale;
import org.acc4j.runtime.transfer.StagedCopy.Settings;

/**
 * What the transfer harnesses ({@link TransferBench}, {@link TransferTimeline}, {@link HostCopyBench}) share: an
 * operation timed by the median of several runs, the lines that head their output and their tables, their lists of
 * sizes, and the checks of their copies.
 */
final class Harness {
    private Harness() {
    }

    /** An operation, timed or run between timed ones. */
    interface Op<E extends Exception> {
        void run() throws E;
    }

    /**
     * The median nanoseconds of {@code reps} timed runs of {@code op} after {@code warm} untimed ones, each run between
     * {@code before} and {@code after} (either may be null), which are not timed.
     */
    static <E extends Exception> long medianNanos(int warm, int reps, Op<E> before, Op<E> op, Op<E> after) throws E {
        long[] nanos = new long[reps];
        for (int i = -warm; i < reps; i++) {
            if (before != null) {
                before.run();
            }
            long t0 = System.nanoTime();
            op.run();
            long t = System.nanoTime() - t0;
            if (i >= 0) {
                nanos[i] = t;
            }
            if (after != null) {
                after.run();
            }
        }
        Arrays.sort(nanos);
        return nanos[reps / 2];
    }

    /**
     * Prints the head of a table: a line of the column names, then the line of their alignment, the first
     * {@code leftColumns} to the left (text), the others to the right (figures).
     */
    static void header(int leftColumns, String... columns) {
        StringBuilder names = new StringBuilder("|");
        StringBuilder align = new StringBuilder("|");
        for (int i = 0; i < columns.length; i++) {
            names.append(' ').append(columns[i]).append(" |");
            align.append(i < leftColumns ? " --- |" : " ---: |");
        }
        System.out.println(names);
        System.out.println(align);
    }

    /** Prints the device, the host's cores and the staging settings, and whether staged pieces can be written back. */
    static void printSetup(String device, Settings settings) {
        System.out.printf(Locale.ROOT, "device: %s; host: %d cores; staging %s%n", device,
                Runtime.getRuntime().availableProcessors(), settings);
        System.out.println("write-back of staged pieces (flush): "
                + (Writeback.available() ? "available" : "does nothing here: " + Writeback.missing()));
    }

    /** The numbers of a comma-separated list. */
    static long[] longs(String list) {
        return Arrays.stream(list.split(",")).mapToLong(v -> Long.parseLong(v.trim())).toArray();
    }

    /** Throws unless the copy was staged. */
    static void require(boolean staged) {
        if (!staged) {
            throw new IllegalStateException("the copy was not staged");
        }
    }

    /** Throws, naming {@code what}, unless {@code back} equals {@code a} element for element; then zeroes it. */
    static void verify(double[] a, double[] back, String what) {
        if (!Arrays.equals(a, back)) {
            throw new IllegalStateException(what + " did not bring the array back element for element");
        }
        Arrays.fill(back, 0);
    }
}
