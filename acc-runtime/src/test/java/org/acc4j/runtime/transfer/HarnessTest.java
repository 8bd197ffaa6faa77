package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * What the transfer harnesses share, without a device: the heads of their tables as they print them, the timing of an
 * operation (warm-up runs untimed, each run between its untimed neighbours), and the checks of their copies.
 */
class HarnessTest {
    private static String printed(Runnable print) {
        PrintStream out = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            print.run();
        } finally {
            System.setOut(out);
        }
        return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    @Test
    void tableHeadsAreTheHarnessesOwn() {
        assertEquals("| step | us | GB/s | ratio to pinned |\n| --- | ---: | ---: | ---: |\n",
                printed(() -> Harness.header(1, "step", "us", "GB/s", "ratio to pinned")));
        assertEquals("| 1 MiB step | us |\n| --- | ---: |\n", printed(() -> Harness.header(1, "1 MiB step", "us")));
        assertEquals("| MiB | copyin | copyout | updateDevice | updateHost | pinned H2D | pinned D2H | pageable H2D"
                        + " | pageable D2H | copyin/pinned | copyout/pinned | updateDevice/pinned | updateHost/pinned |\n"
                        + "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                printed(() -> Harness.header(0, "MiB", "copyin", "copyout", "updateDevice", "updateHost",
                        "pinned H2D", "pinned D2H", "pageable H2D", "pageable D2H", "copyin/pinned", "copyout/pinned",
                        "updateDevice/pinned", "updateHost/pinned")));
        assertEquals("| MiB | slot MiB | slots | threads | min chunk MiB | chunks per copy | piece KiB | H2D | D2H"
                        + " | H2D/pinned | D2H/pinned |\n"
                        + "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                printed(() -> Harness.header(0, "MiB", "slot MiB", "slots", "threads", "min chunk MiB",
                        "chunks per copy", "piece KiB", "H2D", "D2H", "H2D/pinned", "D2H/pinned")));
        assertEquals("| method | threads | to pinned GB/s | from pinned GB/s | DMA GB/s meanwhile |\n"
                        + "| --- | ---: | ---: | ---: | ---: |\n",
                printed(() -> Harness.header(1, "method", "threads", "to pinned GB/s", "from pinned GB/s",
                        "DMA GB/s meanwhile")));
    }

    @Test
    void theSetupNamesDeviceCoresStagingAndWriteBack() {
        String[] lines = printed(() -> Harness.printSetup("a device", Settings.DEFAULT)).split("\n");
        assertEquals("device: a device; host: " + Runtime.getRuntime().availableProcessors() + " cores; staging "
                + Settings.DEFAULT, lines[0]);
        assertTrue(lines[1].equals("write-back of staged pieces (flush): available")
                || lines[1].startsWith("write-back of staged pieces (flush): does nothing here: "), lines[1]);
        assertEquals(2, lines.length);
    }

    @Test
    void warmUpRunsAreUntimedAndEachRunSitsBetweenItsNeighbours() {
        List<String> calls = new ArrayList<>();
        int[] run = {0};
        long median = Harness.medianNanos(2, 3, () -> calls.add("before"), () -> {
            calls.add("op");
            // the two warm-up runs take 40 ms each, the timed ones 1 ms
            sleep(run[0]++ < 2 ? 40 : 1);
        }, () -> calls.add("after"));
        assertEquals(15, calls.size());
        for (int i = 0; i < calls.size(); i += 3) {
            assertEquals(List.of("before", "op", "after"), calls.subList(i, i + 3));
        }
        assertTrue(median >= 1_000_000 && median < 40_000_000, "median " + median + " ns");
        assertThrows(java.io.IOException.class, () -> Harness.medianNanos(0, 1, null, () -> {
            throw new java.io.IOException("failed");
        }, null));
    }

    @Test
    void listsCopiesAndStagingAreChecked() {
        assertArrayEquals(new long[] {8, 32, 1024}, Harness.longs("8, 32,1024"));
        double[] a = {1, 2, 3};
        double[] back = a.clone();
        Harness.verify(a, back, "the copies");
        assertArrayEquals(new double[3], back, 0.0);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Harness.verify(a, back, "the copies"));
        assertEquals("the copies did not bring the array back element for element", e.getMessage());
        Harness.require(true);
        assertThrows(IllegalStateException.class, () -> Harness.require(false));
    }

    @Test
    void theTimelineOfFakeLanesPrintsARowPerChunk() {
        double[] a = new double[1 << 17];
        java.util.Arrays.setAll(a, i -> i * 0.5);
        double[] back = new double[a.length];
        FakeLanes lanes = new FakeLanes();
        lanes.delayMicros = 5;
        FakeDevice.Bytes device = FakeDevice.bytes(a.length * 8);
        try (StagedCopy<FakeDevice> staged = new StagedCopy<>(Settings.DEFAULT.edit(b -> b.minBytes = 0), lanes)) {
            Plan plan = staged.plan(8, a.length);
            String in = printed(() -> TransferTimeline.timeline(staged, () -> { }, () -> null,
                    () -> Harness.require(staged.toDevice(a, device)), true, plan));
            String out = printed(() -> TransferTimeline.timeline(staged, () -> { }, () -> null,
                    () -> Harness.require(staged.toHost(device, back)), false, plan));
            Harness.verify(a, back, "copies through fake lanes");
            for (String t : new String[] {in, out}) {
                assertTrue(t.contains("\n| chunk | KiB | released | host first piece | host last piece | host GB/s"
                        + " | queue call | queue us | device start | device end | device GB/s | device idle before"
                        + " | landed seen |\n| ---: |"), t);
                long rows = t.lines().filter(l -> l.matches("\\| \\d+ \\| \\d+ \\|.*")).count();
                assertEquals(plan.chunks(), rows, t);
            }
            assertTrue(in.contains("### to the device, traced (median of 9: "), in);
            assertTrue(out.contains("### to the host, traced (median of 9: "), out);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
