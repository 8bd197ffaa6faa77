package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Traffic} on {@link FakeMemory}: each allocation, free and copy is counted once, a copy that fails is not
 * counted, every counted copy is told to the listener, and a copy between an entry and its array clears the entry's
 * device-newer mark.
 */
class TrafficTest {
    private final FakeMemory memory = new FakeMemory();
    private final Traffic traffic = new Traffic(memory);
    private final Random random = new Random(5);

    @Test
    void everyCopyIsCountedAndToldToTheListener() {
        List<String> told = new ArrayList<>();
        traffic.listener((toDevice, bytes, nanos) -> told.add((toDevice ? "up " : "down ") + bytes));
        double[] a = new double[100];
        for (int i = 0; i < a.length; i++) {
            a[i] = random.nextGaussian();
        }
        Entry entry = entry(a, traffic.allocate(a));
        entry.deviceNewer = true;
        traffic.upload(entry, a);
        assertFalse(entry.deviceNewer);
        double[] back = new double[100];
        entry.deviceNewer = true;
        traffic.download(entry, back);
        assertFalse(entry.deviceNewer);
        assertArrayEquals(a, back);
        Buffer table = traffic.allocateRaw(32, "a row table");
        traffic.writeLongs(table, new long[] {1, 2, 3, 4});
        traffic.free(entry);
        RuntimeException failure = new IllegalStateException("the caller's failure");
        assertSame(failure, traffic.freeing(table, failure));
        assertEquals(new TransferStats(2, 832, 1, 800, 2, 2), traffic.stats().withoutTimes());
        assertEquals(List.of("up 800", "down 800", "up 32"), told);
        assertEquals(0, memory.live());
        assertEquals(List.of(), memory.violations());
    }

    @Test
    void aCopyThatFailsIsNotCounted() {
        int[] a = {1, 2, 3};
        Entry entry = entry(a, traffic.allocate(a));
        entry.deviceNewer = true;
        memory.failUploads(true);
        assertThrows(IllegalStateException.class, () -> traffic.upload(entry, a));
        // host and device were not made equal
        assertEquals(true, entry.deviceNewer);
        assertEquals(new TransferStats(0, 0, 0, 0, 1, 0), traffic.stats());
        traffic.free(entry);
        assertEquals(List.of(), memory.violations());
    }

    @Test
    void chainKeepsTheFirstFailureAndAddsTheRest() {
        RuntimeException first = new IllegalStateException("first");
        RuntimeException second = new IllegalArgumentException("second");
        assertSame(second, Traffic.chain(null, second));
        assertSame(first, Traffic.chain(first, second));
        assertArrayEquals(new Throwable[] {second}, first.getSuppressed());
    }

    private Entry entry(Object array, Buffer buffer) {
        return new Entry(this, new WeakKey(array, null), buffer, array, null, null);
    }
}
