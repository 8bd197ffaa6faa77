package org.acc4j.compiler.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.PassFixtures;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.junit.jupiter.api.Test;

/** {@link Dataflow}'s queries on the IR of small methods. */
class DataflowTest {
    private static List<Stmt> body(String method) {
        return TestClasses.read(PassFixtures.class, method).body();
    }

    private static Set<String> names(Set<Var> vars) {
        Set<String> out = new TreeSet<>();
        vars.forEach(v -> out.add(v.name()));
        return out;
    }

    @Test
    void assignedIncludesLoopIndicesAndBodyLocals() {
        Set<Var> out = new LinkedHashSet<>();
        Dataflow.assigned(body("scalars"), out);
        assertEquals(Set.of("i", "row", "x"), names(out));
        Set<Var> idx = new LinkedHashSet<>();
        Dataflow.loopIndices(body("jacobi"), idx);
        assertEquals(Set.of("i", "j"), names(idx));
    }

    @Test
    void assignedOnceExcludesRedefinedLocals() {
        Set<String> once = names(Dataflow.assignedOnce(body("scalars")));
        assertTrue(once.contains("row"), once.toString());
        assertFalse(once.contains("x"), once.toString());
    }

    @Test
    void liveInIsTheScalarsReadBeforeTheyAreWritten() {
        // arrays are ArrayRefs, not scalar variables: only n and s (t and m are assigned before their reads)
        Set<Var> in = new LinkedHashSet<>();
        Dataflow.liveIn(body("twoNests"), in);
        assertEquals(Set.of("n", "s"), names(in));
        Set<Var> sumIn = new LinkedHashSet<>();
        Dataflow.liveIn(body("sum"), sumIn);
        assertEquals(Set.of("n"), names(sumIn));
    }

    @Test
    void arrayUsesSayReadAndWrittenPerArray() {
        Map<ArrayRef, boolean[]> uses = Dataflow.arrayUses(body("jacobi"));
        assertEquals(2, uses.size());
        uses.forEach((ref, rw) -> {
            if (ref.name().equals("a")) {
                assertEquals("[false, true]", java.util.Arrays.toString(rw));
            } else {
                assertEquals("b", ref.name());
                assertEquals("[true, false]", java.util.Arrays.toString(rw));
            }
        });
    }

    @Test
    void aLoopWithoutAnEarlyExitDoesNotLeave() {
        assertFalse(Dataflow.leaves(body("jacobi").subList(0, 1)));
    }
}
