package org.acc4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code java -jar acc.jar explain}: its output for a tiny class, and its usage errors. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String testClasses() throws Exception {
        return Path.of(tiny.Tiny.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void explainNamesEachNestWithItsLine() throws Exception {
        assertEquals(0, run("explain", "--class-path", testClasses(), "tiny.Tiny"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("Tiny.java: Tiny.scaleAndSum: 2 loop nests, 2 on the device"), text);
        assertTrue(text.contains("Tiny.java:12: nest on the device: kernel "), text);
        assertTrue(text.contains("Tiny.java:15: nest on the device: kernel "), text);
        assertTrue(text.contains("reduction(+:sum)"), text);
        assertTrue(text.contains("Tiny.java:15:   gives back sum to the host code after it"), text);
        assertTrue(text.contains("Tiny.java: Tiny.shifted: 1 loop nest, 1 on the device"), text);
    }

    @Test
    void explainAsJsonIsOneDocument() throws Exception {
        assertEquals(0, run("explain", "--json", "--class-path", testClasses(), "tiny.Tiny"));
        String text = out.toString(StandardCharsets.UTF_8).strip();
        assertTrue(text.startsWith("{") || text.startsWith("["), text);
        assertTrue(text.contains("scaleAndSum"), text);
    }

    @Test
    void usageErrors() {
        assertEquals(2, run());
        assertEquals(2, run("compile"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command: compile"));
        assertEquals(2, run("explain"));
        assertEquals(0, run("help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: java -jar acc.jar explain"));
    }

    @Test
    void aMissingInputIsAnError() {
        assertEquals(1, run("explain", "--class-path", "/nonexistent", "no.Such"));
    }
}
