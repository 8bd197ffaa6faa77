package org.acc4j.runtime.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

/** Checks every profile must pass, on its parsed JSON; shared by the CI and GPU tests. */
public final class ProfileAssertions {
    private ProfileAssertions() {
    }

    /**
     * Parses the JSON and checks its structure and that it adds up: in each region, kernel time plus transfer time
     * is at most the wall time; each kernel's min ≤ mean ≤ max, total = the sum its launches imply, and at least
     * one launch; no negative number anywhere. Returns the parsed document.
     */
    public static Map<?, ?> assertConsistent(String json) {
        Map<?, ?> doc = (Map<?, ?>) Json.parse(json);
        assertEquals("acc4j-profile", Json.get(doc, "format"), json);
        assertEquals(1L, Json.number(doc, "version"));
        assertTrue(Json.get(doc, "device") instanceof String, json);
        for (Object r : (List<?>) Json.get(doc, "regions")) {
            String kind = (String) Json.get(r, "kind");
            assertTrue(kind.equals("kernels") || kind.equals("data"), kind);
            for (String f : List.of("class", "method", "descriptor", "name")) {
                assertTrue(Json.get(r, f) instanceof String, f);
            }
            long wall = nonNegative(r, "wallNs");
            assertTrue(nonNegative(r, "entries") >= 1, json);
            assertTrue(nonNegative(r, "hostRuns") <= Json.number(r, "entries"), json);
            assertTrue(nonNegative(r, "compileNs") + nonNegative(r, "loadNs") <= wall, () -> "compile and load within the wall time: " + r);
            long busy = moves(r);
            assertTrue(busy <= wall, () -> "kernel time + transfer time " + busy + " ns > wall time " + wall + " ns in " + r);
        }
        moves(Json.get(doc, "outside"));
        return doc;
    }

    /** Checks a region's kernels and transfers; returns their total time. */
    private static long moves(Object r) {
        long busy = 0;
        for (String way : List.of("toDevice", "toHost")) {
            Object t = Json.get(r, way);
            long copies = nonNegative(t, "copies");
            long bytes = nonNegative(t, "bytes");
            busy += nonNegative(t, "ns");
            assertTrue(copies > 0 || bytes == 0 && Json.number(t, "ns") == 0, () -> "bytes without copies: " + t);
        }
        for (Object k : (List<?>) Json.get(r, "kernels")) {
            long launches = nonNegative(k, "launches");
            long total = nonNegative(k, "totalNs");
            long min = nonNegative(k, "minNs");
            long max = nonNegative(k, "maxNs");
            long mean = nonNegative(k, "meanNs");
            assertTrue(launches >= 1, k::toString);
            assertTrue(min <= mean && mean <= max, k::toString);
            assertTrue(min * launches <= total && total <= max * launches, k::toString);
            assertEquals(total / launches, mean, k::toString);
            for (String dims : List.of("grid", "block")) {
                List<?> d = (List<?>) Json.get(k, dims);
                assertEquals(3, d.size());
                for (Object x : d) {
                    assertTrue((Long) x >= 1, k::toString);
                }
            }
            busy += total;
        }
        return busy;
    }

    private static long nonNegative(Object o, String name) {
        long v = Json.number(o, name);
        assertTrue(v >= 0, () -> name + " is negative in " + o);
        return v;
    }
}
