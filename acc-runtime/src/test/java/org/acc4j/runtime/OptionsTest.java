package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OptionsTest {
    private static Options env(String... pairs) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return Options.parse(m, new Properties());
    }

    private static Options props(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return Options.parse(Map.of(), p);
    }

    private static String bad(String... pairs) {
        return assertThrows(IllegalArgumentException.class, () -> env(pairs)).getMessage();
    }

    @Test
    void defaultsToTheFirstGpu() {
        Options o = Options.parse(Map.of(), new Properties());
        assertFalse(o.hostOnly());
        assertEquals(0, o.deviceNumber());
        assertFalse(o.report());
        assertFalse(o.profile());
        assertNull(o.profileJson());
        assertFalse(o.profiling());
    }

    @Test
    void readsOpenAccEnvironmentVariables() {
        Options o = env("ACC_DEVICE_TYPE", "HOST", "ACC_DEVICE_NUM", "1", "ACC4J_REPORT", "1");
        assertTrue(o.hostOnly());
        assertEquals(1, o.deviceNumber());
        assertTrue(o.report());
        assertFalse(env("ACC_DEVICE_TYPE", "nvidia").hostOnly());
    }

    @ParameterizedTest
    @ValueSource(strings = {"nvidia", "NVIDIA", " nvidia ", "default", "not_host", "Not_Host", ""})
    void deviceTypesOfTheGpu(String type) {
        assertFalse(env("ACC_DEVICE_TYPE", type).hostOnly());
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "HOST", "Host", " host"})
    void deviceTypesOfTheHost(String type) {
        assertTrue(env("ACC_DEVICE_TYPE", type).hostOnly());
    }

    @ParameterizedTest
    @ValueSource(strings = {"radeon", "gpu", "cuda", "hostx", "0"})
    void badDeviceTypesNameTheVariableAndTheChoices(String type) {
        String m = bad("ACC_DEVICE_TYPE", type);
        assertTrue(m.contains("ACC_DEVICE_TYPE=" + type) && m.contains("nvidia or host"), m);
    }

    @Test
    void deviceNumbers() {
        assertEquals(0, env("ACC_DEVICE_NUM", "0").deviceNumber());
        assertEquals(1, env("ACC_DEVICE_NUM", "1").deviceNumber());
        assertEquals(7, env("ACC_DEVICE_NUM", " 7 ").deviceNumber());
        assertEquals(0, env("ACC_DEVICE_NUM", "").deviceNumber());
        // a number beyond the device count parses: the runtime runs on the host and says why (AccRuntimeTest, GPU test)
        assertEquals(1000, env("ACC_DEVICE_NUM", "1000").deviceNumber());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-2", "abc", "1.5", "0x1", "99999999999"})
    void badDeviceNumbersNameTheVariable(String num) {
        String m = bad("ACC_DEVICE_NUM", num);
        assertTrue(m.contains("ACC_DEVICE_NUM=" + num) && m.contains("not a device number"), m);
    }

    @Test
    void hoistingIsOnUnlessSwitchedOff() {
        assertTrue(Options.parse(Map.of(), new Properties()).hoistChecks());
        assertTrue(env("ACC4J_HOIST", "").hoistChecks());
        assertTrue(env("ACC4J_HOIST", "on").hoistChecks());
        assertFalse(env("ACC4J_HOIST", "0").hoistChecks());
        assertFalse(props("acc4j.hoist", "off").hoistChecks());
        String m = bad("ACC4J_HOIST", "sometimes");
        assertTrue(m.contains("ACC4J_HOIST=sometimes") && m.contains("not a switch"), m);
    }

    @Test
    void systemPropertiesWin() {
        Properties p = new Properties();
        p.setProperty("acc.device.type", "nvidia");
        p.setProperty("acc.device.num", "2");
        p.setProperty("acc4j.report", "false");
        p.setProperty("acc4j.profile", "true");
        Options o = Options.parse(Map.of("ACC_DEVICE_TYPE", "host", "ACC_DEVICE_NUM", "3", "ACC4J_REPORT", "1",
                "ACC4J_PROFILE", "0"), p);
        assertFalse(o.hostOnly());
        assertEquals(2, o.deviceNumber());
        assertFalse(o.report());
        assertTrue(o.profile());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "true", "TRUE", "yes", "on", " On "})
    void switchesOn(String value) {
        assertTrue(env("ACC4J_REPORT", value).report());
        assertTrue(env("ACC4J_PROFILE", value).profile());
        assertTrue(env("ACC4J_PROFILE", value).profiling());
        assertTrue(props("acc4j.report", value).report());
        assertTrue(props("acc4j.profile", value).profile());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "false", "False", "no", "off", "", "  "})
    void switchesOff(String value) {
        assertFalse(env("ACC4J_REPORT", value).report());
        assertFalse(env("ACC4J_PROFILE", value).profile());
        assertFalse(props("acc4j.profile", value).profiling());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2", "maybe", "enabled", "y"})
    void badSwitchesNameTheVariableAndTheChoices(String value) {
        String report = bad("ACC4J_REPORT", value);
        assertTrue(report.contains("ACC4J_REPORT=" + value) && report.contains("1, true, yes or on"), report);
        String profile = bad("ACC4J_PROFILE", value);
        assertTrue(profile.contains("ACC4J_PROFILE=" + value) && profile.contains("0, false, no or off"), profile);
        assertThrows(IllegalArgumentException.class, () -> props("acc4j.profile", value));
    }

    @Test
    void profileJsonPathTurnsProfilingOn(@TempDir Path dir) {
        Path file = dir.resolve("profile.json");
        Options o = env("ACC4J_PROFILE_JSON", file.toString());
        assertEquals(file.toAbsolutePath(), o.profileJson());
        assertFalse(o.profile(), "the text at exit needs ACC4J_PROFILE");
        assertTrue(o.profiling());
        assertEquals(file.toAbsolutePath(), props("acc4j.profile.json", file.toString()).profileJson());
        assertNull(env("ACC4J_PROFILE_JSON", " ").profileJson());
    }

    @Test
    void badProfileJsonPathsSayWhy(@TempDir Path dir) throws Exception {
        String folder = bad("ACC4J_PROFILE_JSON", dir.toString());
        assertTrue(folder.contains("is a folder") && folder.contains("ACC4J_PROFILE_JSON=" + dir), folder);
        Path missing = dir.resolve("no/such/folder/p.json");
        String absent = bad("ACC4J_PROFILE_JSON", missing.toString());
        assertTrue(absent.contains("does not exist") && absent.contains(dir.resolve("no/such/folder").toString()), absent);
        String nul = bad("ACC4J_PROFILE_JSON", dir + "/a\0b.json");
        assertTrue(nul.contains("is not a file path"), nul);
        Files.createDirectory(dir.resolve("sub"));
        assertEquals(dir.resolve("sub/p.json"), env("ACC4J_PROFILE_JSON", dir + "/sub/p.json").profileJson());
    }

    @Test
    void dumpDirectoryAndSourcePath() {
        Options none = Options.parse(Map.of(), new Properties());
        assertEquals(null, none.dump());
        assertEquals(null, none.sourcePath());
        Options env = Options.parse(Map.of("ACC4J_DUMP", "kernels", "ACC4J_SOURCEPATH", "src/main/java:lib/src"),
                new Properties());
        assertEquals(java.nio.file.Path.of("kernels"), env.dump());
        assertEquals("src/main/java:lib/src", env.sourcePath());
        Properties p = new Properties();
        p.setProperty("acc4j.dump", "/tmp/k");
        p.setProperty("acc4j.sourcepath", "s");
        Options props = Options.parse(Map.of("ACC4J_DUMP", "kernels", "ACC4J_SOURCEPATH", "x"), p);
        assertEquals(java.nio.file.Path.of("/tmp/k"), props.dump());
        assertEquals("s", props.sourcePath());
        assertEquals(null, Options.parse(Map.of("ACC4J_DUMP", " "), new Properties()).dump());
    }
}
