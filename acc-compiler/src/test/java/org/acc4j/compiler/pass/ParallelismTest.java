package org.acc4j.compiler.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.fixtures.PassFixtures;
import org.acc4j.compiler.ir.Region;
import org.junit.jupiter.api.Test;

/** {@link Parallelism} alone, on regions the splitter made: the mapping, the notes and the launch checks. */
class ParallelismTest {
    private static Region decide(String method) {
        List<Region> rs = RegionSplitter.split(TestClasses.read(PassFixtures.class, method));
        assertEquals(1, rs.size());
        return Parallelism.decide(rs.get(0));
    }

    @Test
    void aStencilMapsBothLoopsWithTheStrideOneSubscriptOnThreadIdxX() {
        Region r = decide("jacobi");
        assertEquals("Map2_4: block(128, 2, 1); i from blockIdx.y * blockDim.y + threadIdx.y by gridDim.y * blockDim.y;"
                + " j from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x", r.mapping().toString());
        assertEquals(2, r.notes().size());
        assertTrue(r.notes().get(1).contains("on threadIdx.x for coalescing (stride-1 subscripts)"), r.notes().get(1));
        // a[i*n + j] is disjoint across (i, j) only when the rows do not overlap: j's range must fit in n
        assertEquals(1, r.checks().size());
        assertEquals("a", r.checks().get(0).array().name());
        assertTrue(r.why().startsWith("parallelizable: no loop-carried dependence (disjoint writes checked at launch)"));
    }

    @Test
    void aRecurrenceNamesTheDependenceAndItsDistance() {
        Unsupported u = assertThrows(Unsupported.class, () -> decide("recurrence"));
        assertTrue(u.getMessage().contains(
                "a is written at a[i] and read at a[i - 1]: iteration i reads what iteration i-1 wrote (distance 1)"),
                u.getMessage());
    }

    @Test
    void anInnerRecurrenceStaysSequentialInEachThreadOfTheParallelRows() {
        Region r = decide("rowSweep");
        assertEquals("Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x",
                r.mapping().toString());
        assertTrue(r.notes().get(1).startsWith("line 43: loop over j: sequential in each thread: a is written at"
                + " a[(i * n) + j] and read at a[((i * n) + j) - 1]"), r.notes().get(1));
    }

    @Test
    void aSumIsParallelWithItsReductionNamed() {
        Region r = decide("sum");
        assertTrue(r.why().contains("reduction(+:s) over the whole nest (line 36)"), r.why());
        assertEquals(List.of(), r.checks());
    }

    @Test
    void localsAssignedInTheBodyArePrivateAndASubstitutedRowIsChecked() {
        Region r = decide("scalars");
        assertEquals("Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x",
                r.mapping().toString());
        // a[i*k] collides when k == 0: the launch checks it
        assertEquals(1, r.checks().size());
    }

    @Test
    void decideAllNamesEveryObstacleAtOnce() {
        List<Region> rs = RegionSplitter.split(TestClasses.read(PassFixtures.class, "recurrence"));
        Unsupported u = assertThrows(Unsupported.class, () -> Parallelism.decideAll(List.of(rs.get(0), rs.get(0))));
        assertEquals(2, u.obstacles().size());
    }
}
