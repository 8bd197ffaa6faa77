package org.acc4j.runtime.async;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The host side of a queue: order, and what a failure stops. */
class CompletionsTest {
    @Test
    void itemsRunInQueueOrderOnce() {
        Completions c = new Completions();
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            c.add(failed -> {
                ran.add(n);
                return null;
            });
        }
        assertEquals(5, c.size());
        c.finish();
        assertEquals(List.of(0, 1, 2, 3, 4), ran);
        assertTrue(c.isEmpty());
        c.finish();
        assertEquals(5, ran.size(), "a second wait has nothing to do");
    }

    @Test
    void afterAFailureLaterItemsCopyNothingButStillRunAndTheFirstFailureIsThrown() {
        Completions c = new Completions();
        double[] host = {1, 2, 3};
        double[] staged = {7, 8, 9};
        boolean[] released = new boolean[3];
        ArrayIndexOutOfBoundsException kernel = new ArrayIndexOutOfBoundsException("Index 3 out of bounds for length 3");
        c.add(failed -> {
            released[0] = true;
            return null;
        });
        c.add(failed -> kernel);
        c.add(failed -> {
            if (!failed) {
                System.arraycopy(staged, 0, host, 0, 3);
            }
            released[1] = true;
            return null;
        });
        c.add(failed -> {
            released[2] = true;
            throw new IllegalStateException("a later failure");
        });
        ArrayIndexOutOfBoundsException thrown = assertThrows(ArrayIndexOutOfBoundsException.class, c::finish);
        assertSame(kernel, thrown);
        assertArrayEquals(new double[] {1, 2, 3}, host, "nothing copied back after the kernel's error");
        assertArrayEquals(new boolean[] {true, true, true}, released);
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals("a later failure", thrown.getSuppressed()[0].getMessage());
        assertTrue(c.isEmpty());
        // the failure is not remembered past its wait
        c.add(failed -> failed ? new IllegalStateException("still failed") : null);
        c.finish();
    }
}
