package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Colouring#ofRangeInOrder}: no two iterations of a colour share an element, each element's iterations come in
 * increasing colours, and so running the colours in turn gives every element's sum in the loop's order: Java's sums,
 * bit for bit.
 */
class ColouringInOrderTest {
    @Test
    void runningTheColoursInTurnGivesJavasSums() {
        Random r = new Random(11);
        int n = 20_000;
        int cells = 3000;
        int[] c1 = r.ints(n, 0, cells).toArray();
        int[] c2 = r.ints(n, 0, cells).toArray();
        double[] f = r.doubles(n).map(x -> x * 1e3 - 500).toArray();
        double[] plain = new double[cells];
        for (int e = 0; e < n; e++) {
            plain[c1[e]] += f[e];
            plain[c2[e]] -= f[e];
        }
        Colouring col = Colouring.ofRangeInOrder(0, n, cells, c1, c2);
        double[] coloured = new double[cells];
        int[] lastColour = new int[cells];
        java.util.Arrays.fill(lastColour, -1);
        for (int c = 0; c < col.colours(); c++) {
            boolean[] seen = new boolean[cells];
            for (int j = col.start(c); j < col.end(c); j++) {
                int e = col.order()[j];
                assertTrue(!seen[c1[e]] && (c1[e] == c2[e] || !seen[c2[e]]), "iteration " + e + " shares an element");
                seen[c1[e]] = true;
                seen[c2[e]] = true;
                coloured[c1[e]] += f[e];
                coloured[c2[e]] -= f[e];
            }
        }
        assertArrayEquals(plain, coloured, "every element's sum in the loop's order");
        assertEquals(n, col.order().length);
    }

    @Test
    void tooManyIterationsOnOneElementNameTheFirstThatDoesNotFit() {
        int[] hot = new int[100];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Colouring.ofRangeInOrder(0, 100, 1, hot));
        assertTrue(e.getMessage().startsWith("iteration 64 needs more than 64 colours"), e.getMessage());
    }
}
