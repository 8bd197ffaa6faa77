package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The staging threads: every task runs, awake or after sleeping, a failing task ends no thread, close ends them; a
 * rouse wakes every sleeping thread, and they fall asleep again after their spin.
 */
class CrewTest {
    @Test
    void everyTaskRunsWhetherTheThreadsAreAwakeOrAsleep() throws Exception {
        try (Crew crew = new Crew(3)) {
            AtomicInteger ran = new AtomicInteger();
            for (int round = 0; round < 20; round++) {
                int tasks = 1 + round % 7;
                CountDownLatch done = new CountDownLatch(tasks);
                for (int i = 0; i < tasks; i++) {
                    int fail = i;
                    crew.execute(() -> {
                        ran.incrementAndGet();
                        done.countDown();
                        if (fail == 2) {
                            throw new IllegalStateException("a failing task (expected)");
                        }
                    });
                }
                assertTrue(done.await(10, TimeUnit.SECONDS), "round " + round);
                if (round % 4 == 3) {
                    // long enough for every thread to fall asleep
                    Thread.sleep(2 * Crew.SPIN_MICROS / 1_000 + 5);
                }
            }
            assertEquals(77, ran.get());
            crew.close();
            assertThrows(RejectedExecutionException.class, () -> crew.execute(() -> { }));
        }
    }

    @Test
    void aRouseWakesEverySleepingThreadAndTheySleepAgainAfterTheirSpin() throws Exception {
        try (Crew crew = new Crew(7, 200_000_000)) {
            crew.rouse();
            assertTrue(waitUntil(() -> crew.asleep() == 7, 5_000), "asleep after their spin: " + crew.asleep());
            crew.rouse();
            assertTrue(waitUntil(() -> crew.asleep() == 0, 5_000), "every thread roused: " + crew.asleep());
            assertTrue(waitUntil(() -> crew.asleep() == 7, 5_000), "asleep again: " + crew.asleep());
            CountDownLatch done = new CountDownLatch(1);
            crew.execute(done::countDown);
            assertTrue(done.await(10, TimeUnit.SECONDS), "a task after a rouse runs");
        }
    }

    private static boolean waitUntil(java.util.function.BooleanSupplier condition, long millis) throws Exception {
        long end = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }
}
