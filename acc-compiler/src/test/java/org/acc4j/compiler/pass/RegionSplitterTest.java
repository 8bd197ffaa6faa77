package org.acc4j.compiler.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.PassFixtures;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;

/** {@link RegionSplitter} alone: printed IR in, regions with their prologues and reductions out. */
class RegionSplitterTest {
    @Test
    void eachTopLevelLoopIsARegionWithTheScalarsBeforeIt() {
        List<Region> rs = RegionSplitter.split(TestClasses.read(PassFixtures.class, "twoNests"));
        assertEquals(2, rs.size());
        for (Region r : rs) {
            assertEquals("t = (s * 2.0)\nm = (n / 2)\n", IrPrinter.print(r.prologue()));
            assertEquals(List.of(), r.reductions());
        }
        assertEquals("for i = 0; i < m; i += 1\n  a[i] = (t * b[i])\n", print(rs.get(0).loop()));
        assertEquals("for i = 0; i < n; i += 1\n  b[i] = (a[(i / 2)] + 1.0)\n", print(rs.get(1).loop()));
        assertEquals(0, rs.get(0).ordinal());
        assertEquals(1, rs.get(1).ordinal());
    }

    @Test
    void aScalarCarriedThroughTheNestIsItsReduction() {
        List<Region> rs = RegionSplitter.split(TestClasses.read(PassFixtures.class, "sum"));
        assertEquals(1, rs.size());
        assertEquals("s = 0.0\n", IrPrinter.print(rs.get(0).prologue()));
        assertEquals("[reduction(+:s)]", rs.get(0).reductions().toString());
    }

    @Test
    void aNestWithoutReductionsKeepsItsLoopUnchanged() {
        List<Region> rs = RegionSplitter.split(TestClasses.read(PassFixtures.class, "jacobi"));
        assertEquals(1, rs.size());
        assertEquals("", IrPrinter.print(rs.get(0).prologue()));
        assertEquals("""
                for i = 1; i < (n - 1); i += 1
                  for j = 1; j < (n - 1); j += 1
                    a[((i * n) + j)] = (0.25 * (((b[(((i - 1) * n) + j)] + b[(((i + 1) * n) + j)]) + b[(((i * n) + j) - 1)]) + b[(((i * n) + j) + 1)]))
                """, print(rs.get(0).loop()));
        assertEquals(null, rs.get(0).mapping(), "mapping is the parallelism pass's decision, not the splitter's");
    }

    static String print(Stmt s) {
        return IrPrinter.print(List.of(s));
    }
}
