package org.acc4j.runtime.async;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.Acc;
import org.junit.jupiter.api.Test;

/**
 * The host side of a queue that waits on another ({@link Completions#share}, used by {@link Queue#waitFor}), on two
 * queues' completions with no device: the work a queue depended on is joined by whichever wait comes first, once;
 * a failure there stops both queues' copies; and {@code Acc.waitAsync} without the agent, where it has nothing to do.
 */
class QueueWaitsTest {

    /** A download: copies {@code staged} into {@code host} at the wait unless something failed before. */
    private static Completions.Item download(double[] staged, double[] host, List<String> log, String name) {
        return failed -> {
            log.add(name + (failed ? " skipped" : ""));
            if (!failed) {
                System.arraycopy(staged, 0, host, 0, host.length);
            }
            return null;
        };
    }

    @Test
    void theDependentQueuesWaitJoinsWhatItWaitedOnOnce() {
        Completions one = new Completions();
        Completions three = new Completions();
        List<String> log = new ArrayList<>();
        double[] a = new double[3];
        double[] b = new double[3];
        one.add(download(new double[] {1, 2, 3}, a, log, "a"));
        Completions.Item shared = one.share();
        three.add(shared);
        one.add(download(new double[] {4, 5, 6}, new double[3], log, "after the event"));
        three.add(download(new double[] {7, 8, 9}, b, log, "b"));
        three.finish();
        assertEquals(List.of("a", "b"), log, "queue 3's wait joins queue 1's work before the event, not after");
        assertArrayEquals(new double[] {1, 2, 3}, a);
        assertArrayEquals(new double[] {7, 8, 9}, b);
        one.finish();
        assertEquals(List.of("a", "b", "after the event"), log, "the shared work ran once");
        assertTrue(one.isEmpty() && three.isEmpty());
    }

    @Test
    void theSourcesOwnWaitFirstLeavesNothingForTheDependent() {
        Completions one = new Completions();
        Completions three = new Completions();
        List<String> log = new ArrayList<>();
        one.add(download(new double[] {1}, new double[1], log, "a"));
        three.add(one.share());
        one.finish();
        three.finish();
        assertEquals(List.of("a"), log);
    }

    @Test
    void aFailedKernelOfTheSourceFailsBothWaitsAndStopsTheirCopies() {
        Completions one = new Completions();
        Completions three = new Completions();
        List<String> log = new ArrayList<>();
        ArithmeticException kernel = new ArithmeticException("/ by zero");
        one.add(failed -> kernel);
        three.add(one.share());
        double[] b = {0};
        three.add(download(new double[] {9}, b, log, "b"));
        one.add(download(new double[] {9}, new double[1], log, "later on 1"));
        assertSame(kernel, assertThrows(ArithmeticException.class, three::finish));
        assertEquals(List.of("b skipped"), log);
        assertArrayEquals(new double[] {0}, b, "computed from a failed kernel's data: not copied back");
        assertSame(kernel, assertThrows(ArithmeticException.class, one::finish), "the source's own wait says it too");
        assertEquals(List.of("b skipped", "later on 1 skipped"), log);
    }

    @Test
    void nothingQueuedShareNothing() {
        Completions one = new Completions();
        assertNull(one.share());
        assertTrue(one.isEmpty());
    }

    @Test
    void waitAsyncWithoutTheAgentChecksItsQueuesAndDoesNothing() {
        Acc.waitAsync(new int[] {1, 2}, 3);
        Acc.waitAsync(new int[] {Acc.ASYNC_NOVAL}, Acc.ASYNC_SYNC);
        Acc.waitAsync(new int[0], 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.waitAsync(new int[] {-5}, 3));
        assertTrue(e.getMessage().startsWith("acc4j: Acc.waitAsync: -5 is not a queue"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Acc.waitAsync(new int[] {1}, -9));
        assertThrows(IllegalArgumentException.class, () -> Acc.waitAsync(new int[] {Acc.ASYNC_SYNC}, 1));
        assertThrows(NullPointerException.class, () -> Acc.waitAsync(null, 1));
    }
}
