package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.runtime.profile.Profiler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the present table tells its {@link TransferListener} and the time profile, on {@link FakeMemory}. */
class PresentTableProfileTest {
    /** Holds the fake regions. */
    static final class Host {
    }

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
    }

    @Test
    void theListenerHearsEveryCopyAndTheStatsAddTheirTimes() {
        List<long[]> heard = new ArrayList<>();
        table.listener((toDevice, bytes, nanos) -> heard.add(new long[] {toDevice ? 1 : 0, bytes, nanos}));
        double[] a = new double[100];
        int[][] m = {new int[3], new int[5]};
        table.enter(a, Clause.COPY);
        table.enterDynamic(m, Clause.COPYIN);
        table.updateHost(m);
        table.exit(a, Clause.COPY);
        table.exitDynamic(m, Clause.DELETE, false);
        // a up (800), m's rows up (12, 20) and its row table (2 * 16 and the trailer), m's rows down (12, 20), a down
        long[][] expected = {{1, 800}, {1, 12}, {1, 20}, {1, 48}, {0, 12}, {0, 20}, {0, 800}};
        assertEquals(expected.length, heard.size());
        long up = 0;
        long down = 0;
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i][0], heard.get(i)[0], "direction of copy " + i);
            assertEquals(expected[i][1], heard.get(i)[1], "bytes of copy " + i);
            assertTrue(heard.get(i)[2] >= 0, "time of copy " + i);
            up += expected[i][0] == 1 ? heard.get(i)[2] : 0;
            down += expected[i][0] == 0 ? heard.get(i)[2] : 0;
        }
        TransferStats s = table.transferStats();
        assertEquals(new TransferStats(4, 880, 3, 832, 4, 4), s.withoutTimes());
        assertEquals(up, s.nanosToDevice());
        assertEquals(down, s.nanosToHost());
    }

    @Test
    void theProfileGivesEachRegionItsOwnCopies() {
        Profiler profile = new Profiler(System::nanoTime);
        table.listener(profile);
        float[] x = new float[10];
        float[] y = new float[20];
        table.enterDynamic(x, Clause.COPYIN);
        try (Profiler.Scope data = profile.enter(Profiler.Kind.DATA, Host.class, "outer", "()V")) {
            table.enter(y, Clause.COPYOUT);
            try (Profiler.Scope k = profile.enter(Profiler.Kind.KERNELS, Host.class, "inner", "()V")) {
                table.enter(x, Clause.COPYIN);
                table.updateDevice(x);
                table.exit(x, Clause.COPYIN);
            }
            table.exit(y, Clause.COPYOUT);
        }
        table.listener(null);
        table.exitDynamic(x, Clause.COPYOUT, false);
        Profiler.Snapshot s = profile.snapshot();
        assertEquals(new Profiler.Traffic(0, 0, 0), s.regions().get(0).toDevice(), "copyout zero-fills, copies nothing in");
        assertEquals(1, s.regions().get(0).toHost().copies());
        assertEquals(80, s.regions().get(0).toHost().bytes());
        assertEquals(1, s.regions().get(1).toDevice().copies(), "x was present: only the update copies");
        assertEquals(40, s.regions().get(1).toDevice().bytes());
        assertEquals(0, s.regions().get(1).toHost().copies());
        assertEquals(1, s.outside().toDevice().copies(), "Acc.copyin's upload, outside any region");
        assertEquals(40, s.outside().toDevice().bytes());
        assertEquals(0, s.outside().toHost().copies(), "the listener was removed before the final copyout");
        // the table's own counts include the copy made after the listener was removed
        assertEquals(new TransferStats(2, 80, 2, 120, 2, 2), table.transferStats().withoutTimes());
        org.acc4j.runtime.profile.ProfileAssertions.assertConsistent(org.acc4j.runtime.profile.ProfileFormat.json(s));
    }
}
