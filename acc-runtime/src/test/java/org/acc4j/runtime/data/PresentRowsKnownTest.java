package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.acc4j.runtime.data.Aliasing.Use;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the present table tells a launch about a two-dimensional array's rows without the launch visiting them
 * ({@link PresentTable#leastRowLength}, {@link PresentTable#ownRows}, {@link PresentTable#listedAsRow}), and the
 * aliasing check that relies on it:
 * it must answer exactly as the check that visits every row, for arrays present as one block, rows replaced since,
 * jagged arrays, rows shared with other bound arrays, and arrays not present.
 */
class PresentRowsKnownTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random random = new Random(77);

    private final Aliasing.Known known = new Aliasing.Known() {
        @Override
        public boolean ownRows(Object rank2) {
            return table.ownRows(rank2);
        }

        @Override
        public boolean mayBeRow(Object rank1) {
            return table.listedAsRow(rank1);
        }
    };

    @BeforeEach
    void blocksOn() {
        memory.blocks(true);
    }

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
    }

    private double[][] rows(int m, int n) {
        double[][] a = new double[m][n];
        for (double[] row : a) {
            for (int j = 0; j < n; j++) {
                row[j] = random.nextDouble();
            }
        }
        return a;
    }

    @Test
    void aLaunchLooksAtTheRowsOnceAndEveryLaterQuestionLooksAgain() throws Exception {
        double[][] a = rows(37, 41);
        table.enterDynamic(a, Clause.COPYIN);
        table.beginCall();
        assertTrue(table.ownRows(a));
        assertEquals(41, table.leastRowLength(a));
        // another thread in the same launch's window is not answered from it
        double[] other = new double[7];
        a[3] = other;
        boolean[] seen = new boolean[2];
        Thread t = new Thread(() -> {
            seen[0] = table.ownRows(a);
            seen[1] = table.leastRowLength(a) == -1;
        });
        t.start();
        t.join();
        assertFalse(seen[0], "a row replaced: not the table's rows");
        assertTrue(seen[1], "a row replaced: the shortest row is not known");
        table.endCall();
        // after the launch every question looks at the rows again
        assertFalse(table.ownRows(a));
        assertEquals(-1, table.leastRowLength(a));
        table.beginCall();
        assertFalse(table.ownRows(a), "a new launch looks at the rows");
        table.endCall();
        a[3] = new double[41];
        table.exitDynamic(a, Clause.DELETE, false);
    }

    @Test
    void aPresentBlockWithItsOwnRowsHasOneRowLength() {
        double[][] a = rows(37, 41);
        assertEquals(-1, table.leastRowLength(a), "not present");
        assertFalse(table.ownRows(a));
        table.enterDynamic(a, Clause.COPYIN);
        assertEquals(41, table.leastRowLength(a));
        assertTrue(table.ownRows(a));
        assertTrue(table.listedAsRow(a[5]));
        assertFalse(table.listedAsRow(new double[41]));
        float[][] f = new float[3][1];
        table.enterDynamic(f, Clause.CREATE);
        assertEquals(1, table.leastRowLength(f));
        table.exitDynamic(f, Clause.DELETE, false);
        table.exitDynamic(a, Clause.DELETE, false);
        assertEquals(-1, table.leastRowLength(a), "gone");
    }

    @Test
    void aReplacedRowIsSeenAtOnceAndTheRefreshedTableIsNoBlock() {
        double[][] a = rows(9, 13);
        table.enterDynamic(a, Clause.COPYIN);
        double[] old = a[4];
        a[4] = new double[13];
        assertEquals(-1, table.leastRowLength(a), "the host's rows are not the table's");
        assertFalse(table.ownRows(a));
        a[4] = old;
        assertEquals(13, table.leastRowLength(a), "put back: the same objects again");
        a[4] = new double[12];
        table.updateDevice(a);
        assertFalse(table.entry(a).isContiguous(), "the table now lists a row outside the block");
        assertEquals(12, table.leastRowLength(a), "the table's rows again, the new one the shortest");
        assertTrue(table.ownRows(a));
        table.exitDynamic(a, Clause.DELETE, false);
    }

    @Test
    void theLaunchParametersOfTheRowsSayWhatTheTrailerSays() {
        double[][] a = rows(6, 11);
        Entry e = table.enterDynamic(a, Clause.COPYIN);
        long[] words = ((FakeMemory.FakeBuffer) table.lookup(a)).words();
        assertEquals(words[6 * 2], e.blockAddress(), "the block's start, as the trailer holds it");
        assertTrue(e.blockAddress() != 0);
        assertEquals(11, e.blockRowLength());
        assertEquals(table.lookup(a[0]).address(), e.blockAddress(), "row 0 starts the block");
        assertEquals(table.lookup(a[5]).address(), e.blockAddress() + 5 * 11 * 8L, "row 5 where a flat index puts it");
        a[2] = new double[11];
        table.updateDevice(a);
        assertEquals(0, e.blockAddress(), "a replaced row: the kernel loads rows from the table");
        assertEquals(-1, e.blockRowLength());
        words = ((FakeMemory.FakeBuffer) table.lookup(a)).words();
        assertEquals(0, words[6 * 2]);
        table.exitDynamic(a, Clause.DELETE, false);
        Entry none = table.enterDynamic(new double[0][], Clause.COPYIN);
        assertEquals(0, none.blockAddress());
        assertEquals(-1, none.blockRowLength());
        double[][] jagged = {new double[2], new double[3]};
        Entry j = table.enterDynamic(jagged, Clause.COPYIN);
        assertEquals(-1, j.blockRowLength());
        table.exitDynamic(jagged, Clause.DELETE, false);
    }

    @Test
    void jaggedSharedOrTwiceListedRowsAreNeverVouchedFor() {
        double[][] jagged = {new double[3], new double[4]};
        table.enterDynamic(jagged, Clause.COPYIN);
        assertEquals(3, table.leastRowLength(jagged), "the shortest row");
        assertTrue(table.ownRows(jagged), "distinct rows that only its table lists");
        double[] shared = new double[5];
        double[][] twice = {shared, shared};
        table.enterDynamic(twice, Clause.COPYIN);
        assertEquals(5, table.leastRowLength(twice));
        assertFalse(table.ownRows(twice), "a row listed twice");
        double[][] other = {jagged[1], new double[2]};
        table.enterDynamic(other, Clause.COPYIN);
        assertFalse(table.ownRows(jagged), "its row 1 is also another present array's row");
        assertFalse(table.ownRows(other));
        table.exitDynamic(other, Clause.DELETE, false);
        assertTrue(table.ownRows(jagged));
        table.enterDynamic(jagged[0], Clause.COPYIN);
        assertFalse(table.ownRows(jagged), "its row 0 is present on its own");
        table.exitDynamic(jagged[0], Clause.DELETE, false);
        table.exitDynamic(twice, Clause.DELETE, false);
        table.exitDynamic(jagged, Clause.DELETE, false);
    }

    @Test
    void theVouchedCheckAnswersAsTheFullOne() {
        double[][] a = rows(20, 8);
        double[][] b = rows(20, 8);
        double[] x = new double[8];
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(b, Clause.COPYIN);
        table.enterDynamic(x, Clause.COPYIN);
        List<List<Use>> cases = List.of(
                List.of(new Use("a", a, true), new Use("b", b, false)),
                List.of(new Use("a", a, true), new Use("a2", a, false)),
                List.of(new Use("a", a, false), new Use("a2", a, false)),
                List.of(new Use("a", a, true), new Use("x", x, false)),
                // a row of a bound as a one-dimensional array: the table lists it, so every row is visited
                List.of(new Use("a", a, true), new Use("r", a[3], false)),
                List.of(new Use("a", a, false), new Use("r", a[3], true)),
                List.of(new Use("a", a, false), new Use("r", a[3], false)),
                List.of(new Use("a", a, true), new Use("n", null, false)));
        for (List<Use> uses : cases) {
            assertEquals(Aliasing.problem(uses), Aliasing.problem(uses, known), uses.toString());
        }
        // a row of a put into b on the host: b's rows are no longer its table's, so b's rows are visited
        double[] bRow = b[2];
        b[2] = a[6];
        List<Use> shared = List.of(new Use("a", a, true), new Use("b", b, false));
        assertEquals("row 6 of a is also row 2 of b, and the region writes a", Aliasing.problem(shared, known));
        b[2] = bRow;
        assertNull(Aliasing.problem(shared, known));
        // jagged arrays vouched for by their entries, or not, answer as the full check too
        double[][] j1 = {new double[3], new double[5], new double[4]};
        double[][] j2 = {new double[2], j1[2]};
        table.enterDynamic(j1, Clause.COPYIN);
        List<Use> jagged = List.of(new Use("j1", j1, true), new Use("a", a, false));
        assertNull(Aliasing.problem(jagged, known));
        table.enterDynamic(j2, Clause.COPYIN);
        List<Use> sharing = List.of(new Use("j1", j1, true), new Use("j2", j2, false));
        assertEquals(Aliasing.problem(sharing), Aliasing.problem(sharing, known));
        assertEquals("row 2 of j1 is also row 1 of j2, and the region writes j1", Aliasing.problem(sharing, known));
        table.exitDynamic(j2, Clause.DELETE, false);
        table.exitDynamic(j1, Clause.DELETE, false);
        table.exitDynamic(x, Clause.DELETE, false);
        table.exitDynamic(b, Clause.DELETE, false);
        table.exitDynamic(a, Clause.DELETE, false);
    }
}
