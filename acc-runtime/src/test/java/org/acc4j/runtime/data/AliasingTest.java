package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.acc4j.runtime.data.Aliasing.Use;
import org.junit.jupiter.api.Test;

/** The reasons {@link Aliasing} gives for running a call on the host, and the sharing it allows. */
class AliasingTest {

    @Test
    void nullArraysAndRowsAreNamed() {
        assertEquals("the array x is null", Aliasing.problem(List.of(new Use("x", null, false))));
        double[][] a = {{1}, {2}, {3}, null};
        assertEquals("row 3 of a is null", Aliasing.problem(List.of(new Use("x", new int[1], true),
                new Use("a", a, false))));
        assertNull(Aliasing.problem(List.of(new Use("e", new double[0][], true))));
    }

    @Test
    void writtenRowsMustBeDistinct() {
        double[] same = {1};
        double[][] a = new double[9][];
        for (int i = 0; i < a.length; i++) {
            a[i] = i == 3 || i == 7 ? same : new double[] {i};
        }
        assertEquals("rows 3 and 7 of a are the same array, and the region writes a",
                Aliasing.problem(List.of(new Use("a", a, true))));
        assertNull(Aliasing.problem(List.of(new Use("a", a, false))), "sharing among read rows is fine");
    }

    @Test
    void aRowMayNotBeAnotherBoundArrayWhenEitherIsWritten() {
        double[] b = {1};
        double[][] a = {{0}, {0}, b};
        assertEquals("row 2 of a is also the array b, and the region writes a",
                Aliasing.problem(List.of(new Use("a", a, true), new Use("b", b, false))));
        assertEquals("row 2 of a is also the array b, and the region writes b",
                Aliasing.problem(List.of(new Use("a", a, false), new Use("b", b, true))));
        assertEquals("the array b is also row 2 of a, and the region writes b and a",
                Aliasing.problem(List.of(new Use("b", b, true), new Use("a", a, true))));
        assertNull(Aliasing.problem(List.of(new Use("a", a, false), new Use("b", b, false))));
    }

    @Test
    void aRowOutsideTheRowsTheCallWritesMayBeAnotherReadArray() {
        double[][] a = {{0}, {1}, {2}, {3}, {4}};
        double[] colK = a[1];
        long[] rows2to4 = {2, 4};
        assertNull(Aliasing.problem(List.of(new Use("a", a, true, rows2to4), new Use("colK", colK, false))),
                "row 1 is only read");
        assertEquals("row 1 of a is also the array colK, and the region writes a",
                Aliasing.problem(List.of(new Use("a", a, true, new long[] {1, 4}), new Use("colK", colK, false))));
        assertEquals("row 1 of a is also the array colK, and the region writes colK",
                Aliasing.problem(List.of(new Use("a", a, true, rows2to4), new Use("colK", colK, true))),
                "a written colK is still a written row");
        assertEquals("row 1 of a is also the array colK, and the region writes a",
                Aliasing.problem(List.of(new Use("a", a, true, null), new Use("colK", colK, false))),
                "rows not known: any row may be written");
        double[][] twice = {colK, colK, {5}};
        assertNull(Aliasing.problem(List.of(new Use("t", twice, true, new long[] {2, 2}))),
                "two read rows that are one array");
        assertEquals("rows 0 and 1 of t are the same array, and the region writes t",
                Aliasing.problem(List.of(new Use("t", twice, true, new long[] {1, 2}))));
    }

    @Test
    void aRowMayNotBeARowOfAnotherWrittenArray() {
        int[] shared = {4};
        int[][] a = {{1}, shared};
        int[][] c = {shared, {2}, {3}};
        assertEquals("row 1 of a is also row 0 of c, and the region writes c",
                Aliasing.problem(List.of(new Use("a", a, false), new Use("c", c, true))));
        assertNull(Aliasing.problem(List.of(new Use("a", a, false), new Use("c", c, false))));
    }

    @Test
    void oneDimensionalNamesKeepTheirMessage() {
        long[] x = {1};
        assertEquals("the same array is both x and y, and the region writes it",
                Aliasing.problem(List.of(new Use("x", x, false), new Use("y", x, true))));
        assertNull(Aliasing.problem(List.of(new Use("x", x, false), new Use("y", x, false))));
        double[][] a = {{1}};
        assertEquals("the same array is both a and m, and the region writes it",
                Aliasing.problem(List.of(new Use("a", a, true), new Use("m", a, false))));
    }
}
