package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.acc4j.runtime.profile.Json;
import org.acc4j.runtime.profile.ProfileAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's profile switches end to end, with or without a GPU: what {@code report()} says, what is printed and
 * written when the runtime shuts down, and what a bad setting does.
 */
class AccRuntimeProfileTest {
    private static final List<String> PROPERTIES = List.of("acc4j.profile", "acc4j.profile.json", "acc4j.report",
            "acc.device.type");

    @TempDir
    Path dir;

    @AfterEach
    void defaults() {
        restart();
    }

    /** Ends this run of the runtime and starts the next with exactly these properties; returns what it printed. */
    private static String restart(String... properties) {
        return stderrOf(() -> {
            AccRuntime.get().shutdown();
            PROPERTIES.forEach(System::clearProperty);
            for (int i = 0; i < properties.length; i += 2) {
                System.setProperty(properties[i], properties[i + 1]);
            }
            AccRuntime.get().init();
        });
    }

    private static String stderrOf(Runnable r) {
        PrintStream old = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(old);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withProfilingOffTheReportSaysHowToTurnItOn() {
        restart();
        assertNull(AccRuntime.get().profile());
        String r = AccRuntime.get().report();
        assertTrue(r.startsWith("acc4j: no profile: profiling is off") && r.contains("-Dacc4j.profile=true")
                && r.contains("ACC4J_PROFILE=1"), r);
        assertFalse(stderrOf(() -> AccRuntime.get().shutdown()).contains("acc4j profile"));
    }

    @Test
    void theProfileIsPrintedAndWrittenAtShutdown() throws Exception {
        Path json = dir.resolve("p.json");
        restart("acc4j.profile", "1", "acc4j.profile.json", json.toString());
        String text = AccRuntime.get().report();
        assertTrue(text.startsWith("acc4j profile, device: "), text);
        if (!AccRuntime.get().onDevice()) {
            // without a GPU the nests run on the multicore target (or as plain Java under ACC_DEVICE_TYPE=host)
            assertTrue(text.contains("device: none (") && text.contains("every region ran as plain Java")
                    || text.contains("device: the host's cores (multicore, "), text);
        }
        assertFalse(Files.exists(json), "written at shutdown, not before");
        String printed = stderrOf(() -> AccRuntime.get().shutdown());
        assertTrue(printed.startsWith("acc4j profile, device: "), printed);
        Map<?, ?> doc = ProfileAssertions.assertConsistent(Files.readString(json));
        String device = (String) Json.get(doc, "device");
        assertEquals(AccRuntime.get().onDevice(), !device.startsWith("none (") && !device.startsWith("the host's cores"),
                doc::toString);
        // the next run of the runtime starts a new profile and writes the file again at its shutdown
        Files.delete(json);
        AccRuntime.get().init();
        stderrOf(() -> AccRuntime.get().shutdown());
        assertTrue(Files.exists(json));
    }

    @Test
    void aJsonFileAloneCollectsWithoutPrinting() throws Exception {
        Path json = dir.resolve("only.json");
        restart("acc4j.profile.json", json.toString());
        assertTrue(AccRuntime.get().report().startsWith("acc4j profile, device: "));
        String printed = stderrOf(() -> AccRuntime.get().shutdown());
        assertFalse(printed.contains("acc4j profile"), printed);
        ProfileAssertions.assertConsistent(Files.readString(json));
    }

    @Test
    void aJsonFileThatCannotBeWrittenSaysSoOnStderr() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("gone"));
        restart("acc4j.profile.json", sub.resolve("p.json").toString());
        Files.delete(sub);
        String printed = stderrOf(() -> AccRuntime.get().shutdown());
        assertTrue(printed.startsWith("acc4j: the profile could not be written to " + sub.resolve("p.json").toAbsolutePath()
                + ": java.nio.file.NoSuchFileException"), printed);
    }

    @Test
    void aBadSwitchIsAWarningNamingThePropertyAndTheSwitchStaysOff() {
        List<String> warnings = warningsOf(() -> restart("acc4j.profile", "maybe"));
        assertNull(AccRuntime.get().profile());
        assertTrue(warnings.contains("acc4j: -Dacc4j.profile=maybe is not a switch; use 1, true, yes or on, or 0, false,"
                + " no or off (the profile stays off)"), warnings::toString);
        assertFalse(warnings.stream().anyMatch(w -> w.contains("plain Java") && w.contains("maybe")), warnings::toString);
    }

    @Test
    void aBadDeviceTypeRunsEverythingOnTheHostAndNamesTheProperty() {
        List<String> warnings = warningsOf(() -> restart("acc.device.type", "foo"));
        assertFalse(AccRuntime.get().onDevice());
        assertTrue(warnings.contains("acc4j: -Dacc.device.type=foo is not a device type acc4j knows; use nvidia, multicore or host;"
                + " running every region as plain Java"), warnings::toString);
    }

    private static List<String> warningsOf(Runnable r) {
        List<String> warnings = new ArrayList<>();
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("org.acc4j");
        java.util.logging.Handler h = handler(warnings);
        jul.addHandler(h);
        try {
            r.run();
        } finally {
            jul.removeHandler(h);
        }
        return warnings;
    }

    @Test
    void theDeviceNumberMessageCountsTheDevices() {
        assertEquals("ACC_DEVICE_NUM=1 but there is 1 CUDA device (numbered from 0)", AccRuntime.deviceNumberBeyond("ACC_DEVICE_NUM=1", 1));
        assertEquals("ACC_DEVICE_NUM=4 but there are 2 CUDA devices (numbered from 0)", AccRuntime.deviceNumberBeyond("ACC_DEVICE_NUM=4", 2));
        assertEquals("-Dacc.device.num=4 but there are 2 CUDA devices (numbered from 0)",
                AccRuntime.deviceNumberBeyond("-Dacc.device.num=4", 2));
    }

    private static java.util.logging.Handler handler(List<String> messages) {
        return new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                messages.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
    }
}
