package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.acc4j.compiler.fixtures.LoopDiagnostics;
import org.junit.jupiter.api.Test;

/**
 * What the compiler says about loops it cannot run in parallel ({@link LoopDiagnostics}): every obstacle at once,
 * proven dependences named with their distance and no advice to mark them independent, indirect writes called races,
 * and warnings for loops parallel on the user's word whose writes provably collide. Texts are checked exactly.
 */
class LoopDiagnosticsTest {
    static final Path SOURCE = Path.of("src/test/java/org/acc4j/compiler/fixtures/LoopDiagnostics.java");
    static final String NOT_PARALLEL = "a loop that is not parallelizable: ";
    static final String ADVICE = "; if its iterations are independent, mark the index @Loop(independent = true)";

    private static Diagnostic host(String name) {
        return CompilerTest.host(LoopDiagnostics.class, name);
    }

    /** The line of the first line after {@code method}'s declaration that contains {@code text}. */
    static int line(String method, String text) throws IOException {
        List<String> lines = Files.readAllLines(SOURCE, StandardCharsets.UTF_8);
        int k = 0;
        while (!lines.get(k).contains(" void " + method + "(")) {
            k++;
        }
        while (!lines.get(k).contains(text)) {
            k++;
        }
        return k + 1;
    }

    @Test
    void gaussSeidelNamesBothDistancesAndAdvisesNothing() throws IOException {
        Diagnostic d = host("gaussSeidel");
        int loop = line("gaussSeidel", "for (int i = 1;");
        String first = NOT_PARALLEL + "a is written at a[i] and read at a[i - 1]: iteration i reads what iteration i-1 "
                + "wrote (distance 1)";
        String second = NOT_PARALLEL + "a is written at a[i] and read at a[i + 1]: iteration i reads what iteration i+1 "
                + "overwrites later (distance 1)";
        assertEquals(List.of(new Diagnostic.Obstacle(loop, first), new Diagnostic.Obstacle(loop + 1, second)),
                d.obstacles());
        assertEquals(first, d.construct());
        assertEquals("org.acc4j.compiler.fixtures.LoopDiagnostics.gaussSeidel (LoopDiagnostics.java:" + loop + "): "
                + first + " (and 1 more: LoopDiagnostics.java:" + (loop + 1) + ": " + second + ")", d.toString());
        assertFalse(d.toString().contains("independent"), d::toString);
    }

    @Test
    void rowAboveIsADistanceOfOneRow() {
        assertEquals(NOT_PARALLEL + "a is written at a[(i * m) + j] and read at a[((i - 1) * m) + j]: iteration i reads "
                + "what iteration i-1 wrote (distance 1)", host("rowsInPlace").construct());
    }

    @Test
    void carriedScalarIsNamedWithoutAdvice() throws IOException {
        assertEquals(NOT_PARALLEL + "the scalar s is carried from one iteration to the next and is not a reduction"
                + " (its update at line " + line("carriedScalar", "s = s * 0.5") + " (s = ((s * 0.5) + a[i])) is not an"
                + " accumulation v = v op e)", host("carriedScalar").construct());
    }

    @Test
    void histogramIsARace() throws IOException {
        assertEquals(NOT_PARALLEL + "bins is written at bins[data[i]] (line " + line("histogram", "bins[data[i]] += w[i]")
                + "), an index read from memory: iterations that write the same element would race, unless the indices "
                + "are all distinct; to add to it from every iteration, write Acc.atomicAdd(bins, data[i], w[i]) or mark the loop's index "
                + "@Loop(increments = Loop.Increments.ATOMIC)",
                host("histogram").construct());
    }

    @Test
    void unknownDistanceIsMerelyUnprovenAndAdvisesIndependent() throws IOException {
        int l = line("reversed", "a[i] = a[n - 1 - i]");
        assertEquals(NOT_PARALLEL + "a is written and also accessed at another subscript (line " + l + " and line " + l
                + ")" + ADVICE, host("reversed").construct());
    }

    @Test
    void everyUnsupportedConstructOfALoopBodyAtOnce() throws IOException {
        Diagnostic d = host("threeProblems");
        int l = line("threeProblems", "Math.IEEEremainder");
        assertEquals(List.of(new Diagnostic.Obstacle(l, "a call to java.lang.Math.IEEEremainder"),
                new Diagnostic.Obstacle(l + 1, "an assignment to the field counter"),
                new Diagnostic.Obstacle(l + 2, "a call to java.lang.Math.scalb")), d.obstacles());
        assertEquals("org.acc4j.compiler.fixtures.LoopDiagnostics.threeProblems (LoopDiagnostics.java:" + l
                + "): a call to java.lang.Math.IEEEremainder (and 2 more: LoopDiagnostics.java:" + (l + 1)
                + ": an assignment to the field counter; LoopDiagnostics.java:" + (l + 2)
                + ": a call to java.lang.Math.scalb)", d.toString());
    }

    @Test
    void everyLoopOfAMethodAtOnce() throws IOException {
        Diagnostic d = host("twoLoops");
        assertEquals(List.of(new Diagnostic.Obstacle(line("twoLoops", "for (int i = 1;"), NOT_PARALLEL
                        + "a is written at a[i] and read at a[i - 1]: iteration i reads what iteration i-1 wrote (distance 1)"),
                new Diagnostic.Obstacle(line("twoLoops", "for (int i = n - 1;"), NOT_PARALLEL + "bins is written at "
                        + "bins[data[i]] (line " + line("twoLoops", "bins[data[i]] += w[i]") + "), an index read from memory: "
                        + "iterations that write the same element would race, unless the indices are all distinct; to add "
                        + "to it from every iteration, write Acc.atomicAdd(bins, data[i], w[i]) or mark the loop's index "
                        + "@Loop(increments = Loop.Increments.ATOMIC)")),
                d.obstacles());
    }

    @Test
    void oneObstacleKeepsTheOldForm() {
        Diagnostic d = new Diagnostic("p/C", "m", "C.java", 3, "a throw");
        assertEquals(List.of(new Diagnostic.Obstacle(3, "a throw")), d.obstacles());
        assertEquals("p.C.m (C.java:3): a throw", d.toString());
    }

    @Test
    void independentLoopWritingOneElementIsKeptWithAWarning() throws IOException {
        CompiledMethod m = CompilerTest.offload(LoopDiagnostics.class, "independentSameElement");
        String w = "warning: line " + line("independentSameElement", "for (@Loop") + ": the loop over i is parallel on "
                + "the user's word @Loop(independent), but at line " + line("independentSameElement", "a[0] = b[i]")
                + " every iteration writes a[0]; its iterations run at once, so the result depends on their timing";
        assertEquals(List.of(w), m.warnings());
        assertTrue(m.report().stream().anyMatch(r -> r.endsWith(w)), () -> String.join("\n", m.report()));
    }

    @Test
    void markedLoopReadingWhatTheLastIterationWroteIsKeptWithAWarning() throws IOException {
        CompiledMethod m = CompilerTest.offload(LoopDiagnostics.class, "independentShifted");
        assertEquals(List.of("warning: line " + line("independentShifted", "for (@Loop") + ": the loop over i is "
                + "parallel on the user's word @Loop(gang, vector=128), but at line "
                + line("independentShifted", "a[i + 1] = a[i] * 2") + " a is written at a[i + 1] and read at a[i]: "
                + "iteration i reads what iteration i-1 wrote (distance 1); its iterations run at once, so the result "
                + "depends on their timing"), m.warnings());
    }

    @Test
    void independentLoopThatIsIndependentHasNoWarning() {
        assertEquals(List.of(), CompilerTest.offload(LoopDiagnostics.class, "independentClean").warnings());
    }

    @Test
    void aParallelLoopsTestIsOneComparison() throws IOException {
        Diagnostic d = host("compoundTest");
        assertEquals(new Diagnostic.Obstacle(line("compoundTest", "for (int i = 0;"), "a loop over i whose test has && or "
                + "|| (a parallel loop's test is one comparison of its index with a bound)"), d.obstacles().get(0));
    }

    @Test
    void aMarkedLoopMustBeCounted() throws IOException {
        assertEquals(List.of(new Diagnostic.Obstacle(line("markedStrided", "for (@Loop"), "a loop whose index j steps "
                + "by (long) s and is a long (a step that is not a constant needs an int index), so it cannot be the "
                + "parallel loop @Loop(gang) asks for")), host("markedStrided").obstacles());
    }

    @Test
    void returnsAndLabelledBreaksOutOfLoopsStayOnTheHost() throws IOException {
        assertEquals(List.of(new Diagnostic.Obstacle(line("returnInside", "return;"), "a return inside a loop")),
                host("returnInside").obstacles());
        assertEquals(new Diagnostic.Obstacle(line("labelledBreak", "for (int k = 0;"), "a labelled break out of an inner "
                + "loop"), host("labelledBreak").obstacles().get(0));
    }
}
