package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QueuedHolds} on {@link FakeMemory}: the exits of async calls at their waits. A {@code copyout} of a call
 * whose array a later async call (queued behind it with {@code Acc.waitAsync}) still holds reaches the host at the
 * first call's exit, element for element the device's values; references of an enclosing region or a dynamic one
 * keep OpenACC's rule (only the last exit copies back), and a failed call copies nothing.
 */
class QueuedHoldsTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final QueuedHolds holds = new QueuedHolds();

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(java.util.List.of(), memory.violations());
    }

    /** An async call's entry with {@code x} under {@code clause}: the table's reference, held for the call's exit. */
    private void entered(double[] x, Clause clause) {
        table.enter(x, clause);
        holds.entered(x, clause);
    }

    /** Values a kernel wrote into the device copy of {@code x}. */
    private double[] written(double[] x, long seed) {
        Random r = new Random(seed);
        double[] device = new double[x.length];
        for (int i = 0; i < device.length; i++) {
            device[i] = r.nextGaussian();
        }
        table.lookup(x).upload(device);
        return device;
    }

    @Test
    void aCopyoutHeldByALaterAsyncCallReachesTheHostAtItsOwnExit() {
        double[] x = new double[1000];
        // queue 1's call: x absent, copyout; queue 4's call after waitAsync({1}, 4): x present, read only
        entered(x, Clause.COPYOUT);
        double[] device = written(x, 164);
        entered(x, Clause.COPYIN);
        // the wait for queue 4 runs queue 1's exits first, then its own
        holds.exit(table, x, Clause.COPYOUT);
        assertArrayEquals(device, x, "copied back at queue 1's exit");
        assertEquals(1, holds.held(x));
        holds.exit(table, x, Clause.COPYIN);
        assertFalse(table.isPresent(x));
        assertArrayEquals(device, x);
        assertEquals(0, holds.held(x));
    }

    @Test
    void aLaterCallThatCopiesBackCopiesAtItsOwnExit() {
        double[] x = new double[256];
        double[] before = x.clone();
        entered(x, Clause.COPYOUT);
        entered(x, Clause.COPY);
        double[] device = written(x, 168);
        holds.exit(table, x, Clause.COPYOUT);
        assertArrayEquals(before, x, "the later call writes x: its exit copies it");
        holds.exit(table, x, Clause.COPY);
        assertArrayEquals(device, x);
        assertFalse(table.isPresent(x));
    }

    @Test
    void aLaterCallThatFailedCopiesNothingOfItsOwn() {
        double[] x = new double[256];
        double[] before = x.clone();
        entered(x, Clause.COPYOUT);
        entered(x, Clause.COPY);
        written(x, 169);
        holds.exit(table, x, Clause.COPYOUT);
        holds.discard(table, x, Clause.COPY);
        assertArrayEquals(before, x, "nothing after a failed kernel reaches the host");
        assertFalse(table.isPresent(x));
    }

    @Test
    void anEnclosingRegionKeepsTheCopyForItsOwnExit() {
        double[] x = new double[64];
        double[] before = x.clone();
        table.enter(x, Clause.COPY);
        entered(x, Clause.COPY);
        double[] device = written(x, 165);
        holds.exit(table, x, Clause.COPY);
        assertArrayEquals(before, x, "the enclosing region still holds x: nothing copied yet");
        table.exit(x, Clause.COPY);
        assertArrayEquals(device, x);
    }

    @Test
    void aDynamicReferenceKeepsTheDataOnTheDevice() {
        double[] x = new double[64];
        double[] before = x.clone();
        table.enterDynamic(x, Clause.CREATE);
        entered(x, Clause.COPYOUT);
        entered(x, Clause.COPYIN);
        written(x, 166);
        holds.exit(table, x, Clause.COPYOUT);
        holds.exit(table, x, Clause.COPYIN);
        assertArrayEquals(before, x, "present by Acc.create: no exit copies back");
        table.exitDynamic(x, Clause.DELETE, false);
    }

    @Test
    void aFailedCallCopiesNothing() {
        double[] x = new double[64];
        double[] before = x.clone();
        entered(x, Clause.COPYOUT);
        entered(x, Clause.COPYIN);
        written(x, 167);
        holds.discard(table, x, Clause.COPYOUT);
        holds.exit(table, x, Clause.COPYIN);
        assertArrayEquals(before, x);
        assertFalse(table.isPresent(x));
    }
}
