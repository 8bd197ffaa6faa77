package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * A traced staged copy ({@link Trace}) records its whole timeline in order: it begins and ends with the copy, every
 * piece starts and ends once, every chunk's device copy is queued once, and chunks are queued in order; a copy with no
 * trace records nothing and the result is the same either way.
 */
class TraceTest {
    @Test
    void aTracedCopyRecordsEveryPieceAndChunkOnce() {
        Settings s = new Settings(0, 256, 3, 1, 64, 4, 16).withThreads(4);
        for (boolean in : new boolean[] {true, false}) {
            FakeLanes lanes = new FakeLanes();
            lanes.delayMicros = 10;
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s, lanes)) {
                double[] a = (double[]) StagedCopyTest.random(double[].class, 1001, new Random(9));
                FakeDevice.Bytes device = FakeDevice.bytes(8 * a.length);
                double[] back = new double[a.length];
                if (!in) {
                    staged.toDevice(a, device);
                }
                Trace t = new Trace(1 << 14);
                staged.trace(t);
                assertTrue(in ? staged.toDevice(a, device) : staged.toHost(device, back));
                staged.trace(null);
                if (in) {
                    assertArrayEquals(StagedCopyTest.bytesOf(a), device.data.array());
                } else {
                    assertArrayEquals(a, back);
                }
                Plan plan = staged.plan(8, a.length);
                assertEquals(0, t.dropped());
                assertEquals(Trace.Kind.BEGIN, t.kind(0));
                assertEquals(Trace.Kind.END, t.kind(t.size() - 1));
                int[] begun = new int[(int) plan.pieces()];
                int[] ended = new int[(int) plan.pieces()];
                long nextQueued = 0;
                for (int i = 0; i < t.size(); i++) {
                    assertTrue(i == 0 || t.time(i) >= t.time(0));
                    switch (t.kind(i)) {
                        case PIECE_BEGIN -> begun[(int) t.arg(i)]++;
                        case PIECE_END -> ended[(int) t.arg(i)]++;
                        case QUEUE_END -> assertEquals(nextQueued++, t.arg(i), "chunks queued in order");
                        default -> {
                        }
                    }
                }
                assertEquals(plan.chunks(), nextQueued);
                for (int p = 0; p < begun.length; p++) {
                    assertEquals(1, begun[p], "piece " + p + " begun once");
                    assertEquals(1, ended[p], "piece " + p + " ended once");
                }
                assertEquals(List.of(), lanes.violations);
                int size = t.size();
                assertTrue(in ? staged.toDevice(a, device) : staged.toHost(device, back));
                assertEquals(size, t.size(), "no events once the trace is off");
            }
        }
    }
}
