package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Plan}: for lengths at, around and between every ramp and chunk boundary, and random ones, with and without a
 * ramp, the chunks follow each other and cover the array exactly, none is empty or larger than a middle chunk, the
 * ramp doubles up and halves down symmetrically, the pieces of each chunk cover it exactly and {@link Plan#chunkOf}
 * finds every piece's chunk.
 */
class PlanTest {
    @Test
    void chunksAndPiecesCoverEveryArrayExactly() {
        Random r = new Random(11);
        int plans = 0;
        for (int chunk : new int[] {1, 7, 64, 1000, 1 << 17}) {
            for (long ramp : new long[] {0, 1, 3, 8, chunk / 4, chunk / 2, chunk}) {
                for (int cores : new int[] {1, 3, 16}) {
                    for (long minPiece : new long[] {1, 5, 64}) {
                        java.util.TreeSet<Long> lengths = new java.util.TreeSet<>();
                        for (long n = 0; n <= 40; n++) {
                            lengths.add(n);
                        }
                        for (long k = 1; k <= 12; k++) {
                            for (long base : new long[] {k * chunk, 2 * ramp * ((1L << k) - 1),
                                    2 * ramp * ((1L << k) - 1) + k * chunk}) {
                                for (long d = -1; d <= 1; d++) {
                                    if (base + d >= 0) {
                                        lengths.add(base + d);
                                    }
                                }
                            }
                        }
                        for (int i = 0; i < 5; i++) {
                            lengths.add((long) r.nextInt(50 * chunk + 1));
                        }
                        for (long length : lengths) {
                            check(new Plan(8, length, chunk, ramp, minPiece, cores, HostCopy.BUFFER), chunk, ramp);
                            plans++;
                        }
                    }
                }
            }
        }
        assertTrue(plans > 1000);
    }

    /** The ramp doubles up and halves down symmetrically. */
    @Test
    void aRampGrowsFromItsSizeAndShrinksBackAtTheEnd() {
        // 1 MiB of doubles, middle chunks of 128 KiB (16384), ramp from 8 KiB: 1024, 2048, 4096, 8192 elements each end
        Plan p = new Plan(8, 1 << 17, 16384, 1024, 64, 16, HostCopy.BUFFER);
        int[] up = {1024, 2048, 4096, 8192};
        for (int i = 0; i < up.length; i++) {
            assertEquals(up[i], p.count(i));
            assertEquals(up[i], p.count(p.chunks() - 1 - i));
        }
        assertEquals(16384, p.count(up.length));
        assertEquals(4 + 4 + (131072 - 2 * 15360 + 16383) / 16384, p.chunks());
        // the smallest chunks still give every core a piece where pieces may be that small
        assertEquals(16, p.firstPiece(1) - p.firstPiece(0));
    }

    private static void check(Plan p, int chunk, long ramp) {
        String what = p.toString();
        assertEquals(0, p.first(0), what);
        assertEquals(p.length(), p.first(p.chunks()), what);
        assertEquals(0, p.firstPiece(0), what);
        assertEquals(p.pieces(), p.firstPiece(p.chunks()), what);
        assertEquals(p.length() == 0, p.chunks() == 0, what);
        for (long k = 0; k < p.chunks(); k++) {
            int count = p.count(k);
            assertTrue(count > 0 && count <= chunk, what + ": chunk " + k + " of " + count);
            long n = p.firstPiece(k + 1) - p.firstPiece(k);
            int per = p.pieceElements(k);
            assertTrue(per > 0 && per <= chunk, what);
            assertEquals((count + per - 1) / per, n, what + ": pieces of chunk " + k);
            for (long q = p.firstPiece(k); q < p.firstPiece(k + 1); q++) {
                assertEquals(k, p.chunkOf(q), what + ": piece " + q);
            }
        }
    }
}
