package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The time-loop samples' table: its text, and the best times of forms run in turn. */
class FormTableTest {
    @Test
    void theTablePrintsItsHeaderAndARowPerForm() {
        PrintStream out = System.out;
        Locale locale = Locale.getDefault();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            Locale.setDefault(Locale.ROOT);
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            FormTable table = FormTable.header(200, 40);
            table.row("plain Java", 40);
            table.row("unchanged source", 8);
        } finally {
            System.setOut(out);
            Locale.setDefault(locale);
        }
        String n = System.lineSeparator();
        assertEquals("| form | ms | ms per step | plain Java / form |" + n + "| --- | --- | --- | --- |" + n
                + "| plain Java | 40.0 | 0.200 | 1.00 |" + n
                + "| unchanged source | 8.0 | 0.040 | 5.00 |" + n, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void eachFormRunsOnceARoundInTurnAndKeepsItsBestTime() {
        List<String> ran = new ArrayList<>();
        double[] best = FormTable.bestMillis(3, () -> {
            ran.add("slow");
            try {
                Thread.sleep(3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, () -> ran.add("fast"));
        assertEquals(List.of("slow", "fast", "slow", "fast", "slow", "fast"), ran);
        assertEquals(2, best.length);
        assertTrue(best[0] >= 3, "slow form " + best[0] + " ms");
        assertTrue(best[1] < best[0], "fast form " + best[1] + " ms");
    }
}
