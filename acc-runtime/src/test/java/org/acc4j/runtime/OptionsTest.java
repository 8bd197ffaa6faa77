package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    @ValueSource(strings = {"multicore", "MULTICORE", " Multicore "})
    void theMulticoreTargetIsADeviceType(String type) {
        Options o = env("ACC_DEVICE_TYPE", type);
        assertTrue(o.multicore() && !o.hostOnly(), o::toString);
        assertEquals(Runtime.getRuntime().availableProcessors(), o.threads());
    }

    @Test
    void theCoreCountSetsTheMulticoreThreads() {
        Options o = env("ACC_NUM_CORES", "3");
        assertEquals(3, o.cores());
        assertEquals(3, o.threads());
        assertEquals("ACC_NUM_CORES=3", o.given("ACC_NUM_CORES"));
        for (String v : new String[] {"0", "-2", "many"}) {
            String m = bad("ACC_NUM_CORES", v);
            assertTrue(m.contains("ACC_NUM_CORES=" + v) && m.contains("is not a thread count (1, 2, ...)"), m);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"radeon", "gpu", "cuda", "hostx", "0"})
    void badDeviceTypesNameTheVariableAndTheChoices(String type) {
        String m = bad("ACC_DEVICE_TYPE", type);
        assertTrue(m.contains("ACC_DEVICE_TYPE=" + type) && m.contains("nvidia, multicore or host"), m);
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
        List<String> w = new ArrayList<>();
        assertTrue(parse(Map.of("ACC4J_HOIST", "sometimes"), new Properties(), w).hoistChecks(), "keeps its default");
        assertEquals(List.of("ACC4J_HOIST=sometimes is not a switch; use 1, true, yes or on, or 0, false, no or off"
                + " (bounds checks stay hoisted)"), w);
    }

    @Test
    void autotuningIsOnUnlessSwitchedOff() {
        assertTrue(Options.parse(Map.of(), new Properties()).autotune());
        assertFalse(env("ACC4J_AUTOTUNE", "off").autotune());
        assertFalse(props("acc4j.autotune", "0").autotune());
        assertTrue(env("ACC4J_AUTOTUNE", "on").autotune());
        List<String> w = new ArrayList<>();
        assertTrue(parse(Map.of("ACC4J_AUTOTUNE", "fast"), new Properties(), w).autotune(), "keeps its default");
        assertEquals(List.of("ACC4J_AUTOTUNE=fast is not a switch; use 1, true, yes or on, or 0, false, no or off"
                + " (autotuning stays on)"), w);
    }

    @Test
    void deferredLaunchesAreOnUnlessSwitchedOff() {
        assertTrue(Options.parse(Map.of(), new Properties()).defer());
        assertFalse(env("ACC4J_DEFER", "off").defer());
        assertFalse(props("acc4j.defer", "false").defer());
        assertTrue(env("ACC4J_DEFER", "on").defer());
        // the property wins over the variable
        assertFalse(parse(Map.of("ACC4J_DEFER", "on"), p("acc4j.defer", "0"), new ArrayList<>()).defer());
        List<String> w = new ArrayList<>();
        assertTrue(parse(Map.of("ACC4J_DEFER", "later"), new Properties(), w).defer(), "keeps its default");
        assertEquals(List.of("ACC4J_DEFER=later is not a switch; use 1, true, yes or on, or 0, false, no or off"
                + " (launches stay deferred)"), w);
    }

    @Test
    void mappedErrorRecordIsOnUnlessSwitchedOff() {
        assertTrue(Options.parse(Map.of(), new Properties()).mapped());
        assertFalse(env("ACC4J_MAPPED", "off").mapped());
        assertFalse(props("acc4j.mapped", "0").mapped());
    }

    @Test
    void theDriversCacheIsTheDefaultAndTheCubinCacheFolderIsTheUsersCacheFolder() {
        Properties p = new Properties();
        p.setProperty("user.home", "/home/someone");
        Options o = Options.parse(Map.of(), p);
        assertEquals(Options.CacheMode.DRIVER, o.cache());
        assertEquals(java.nio.file.Path.of("/home/someone/.cache/acc4j/kernels"), o.cacheDir());
        assertEquals(java.nio.file.Path.of("/xdg/acc4j/kernels"),
                Options.parse(Map.of("XDG_CACHE_HOME", "/xdg"), p).cacheDir());
        assertEquals(java.nio.file.Path.of("/tmp/k"),
                Options.parse(Map.of("ACC4J_CACHE_DIR", "/tmp/k", "XDG_CACHE_HOME", "/xdg"), p).cacheDir());
        assertEquals(Options.CacheMode.OFF, env("ACC4J_CACHE", "off").cache());
        assertEquals(Options.CacheMode.DRIVER, props("acc4j.cache", "Driver").cache());
        assertEquals(Options.CacheMode.CUBIN, env("ACC4J_CACHE", "cubin").cache());
        List<String> w = new ArrayList<>();
        assertEquals(Options.CacheMode.DRIVER, parse(Map.of("ACC4J_CACHE", "sometimes"), new Properties(), w).cache());
        assertEquals(List.of("ACC4J_CACHE=sometimes is not a cache mode; use cubin, driver or off (the driver's JIT"
                + " cache stays in use)"), w);
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
    void badSwitchesAreWarningsNamingTheVariableAndTheChoices(String value) {
        List<String> w = new ArrayList<>();
        Options o = parse(Map.of("ACC4J_REPORT", value, "ACC4J_PROFILE", value), new Properties(), w);
        assertFalse(o.report());
        assertFalse(o.profiling());
        assertFalse(o.hostOnly(), "only a bad device setting sends regions to the host");
        assertEquals(List.of("ACC4J_REPORT=" + value + " is not a switch; use 1, true, yes or on, or 0, false, no or off"
                        + " (the compile report stays off)",
                "ACC4J_PROFILE=" + value + " is not a switch; use 1, true, yes or on, or 0, false, no or off"
                        + " (the profile stays off)"), w);
    }

    @Test
    void messagesNameTheSettingAsTheUserGaveIt() {
        Properties p = new Properties();
        p.setProperty("acc.device.type", "foo");
        String type = assertThrows(IllegalArgumentException.class, () -> Options.parse(Map.of("ACC_DEVICE_TYPE", "host"), p))
                .getMessage();
        assertEquals("acc4j: -Dacc.device.type=foo is not a device type acc4j knows; use nvidia, multicore or host", type);
        Properties n = new Properties();
        n.setProperty("acc.device.num", "x");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse(Map.of(), n)).getMessage()
                .startsWith("acc4j: -Dacc.device.num=x is not a device number"));
        List<String> w = new ArrayList<>();
        Properties r = new Properties();
        r.setProperty("acc4j.report", "maybe");
        parse(Map.of("ACC4J_REPORT", "1"), r, w);
        assertTrue(w.get(0).startsWith("-Dacc4j.report=maybe is not a switch"), w::toString);
        Options given = parse(Map.of("ACC_DEVICE_NUM", "2"), p("acc.device.type", "host"), w);
        assertEquals("-Dacc.device.type=host", given.given("ACC_DEVICE_TYPE"));
        assertEquals("ACC_DEVICE_NUM=2", given.given("ACC_DEVICE_NUM"));
        assertEquals("ACC4J_REPORT", given.given("ACC4J_REPORT"), "unset: the variable's name");
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
    void badProfileJsonPathsAreWarningsAndNoJsonIsWritten(@TempDir Path dir) throws Exception {
        List<String> w = new ArrayList<>();
        assertNull(parse(Map.of("ACC4J_PROFILE_JSON", dir.toString()), new Properties(), w).profileJson());
        assertTrue(w.get(0).contains("is a folder") && w.get(0).startsWith("ACC4J_PROFILE_JSON=" + dir), w::toString);
        Path missing = dir.resolve("no/such/folder/p.json");
        Options absent = parse(Map.of(), p("acc4j.profile.json", missing.toString()), w);
        assertNull(absent.profileJson());
        assertFalse(absent.profiling());
        assertTrue(w.get(1).startsWith("-Dacc4j.profile.json=" + missing) && w.get(1).contains("does not exist")
                && w.get(1).contains(dir.resolve("no/such/folder").toString()), w::toString);
        assertNull(parse(Map.of("ACC4J_PROFILE_JSON", dir + "/a\0b.json"), new Properties(), w).profileJson());
        assertTrue(w.get(2).contains("is not a file path"), w::toString);
        Files.createDirectory(dir.resolve("sub"));
        assertEquals(dir.resolve("sub/p.json"), env("ACC4J_PROFILE_JSON", dir + "/sub/p.json").profileJson());
    }

    @Test
    void dumpFolderIsCreatedAndSourcePathRead(@TempDir Path dir) {
        Options none = Options.parse(Map.of(), new Properties());
        assertNull(none.dump());
        assertNull(none.sourcePath());
        Path kernels = dir.resolve("kernels");
        Options env = Options.parse(Map.of("ACC4J_DUMP", kernels.toString(), "ACC4J_SOURCEPATH", "src/main/java:lib/src"),
                new Properties());
        assertEquals(kernels, env.dump());
        assertTrue(Files.isDirectory(kernels));
        assertEquals("src/main/java:lib/src", env.sourcePath());
        Path k = dir.resolve("k");
        Properties p = p("acc4j.dump", k.toString(), "acc4j.sourcepath", "s");
        Options props = Options.parse(Map.of("ACC4J_DUMP", kernels.toString(), "ACC4J_SOURCEPATH", "x"), p);
        assertEquals(k, props.dump());
        assertEquals("s", props.sourcePath());
        assertNull(Options.parse(Map.of("ACC4J_DUMP", " "), new Properties()).dump());
    }

    @Test
    void aDumpFolderThatCannotBeCreatedIsAWarningAndNothingIsDumped(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        List<String> w = new ArrayList<>();
        Options under = parse(Map.of("ACC4J_DUMP", file.resolve("kernels").toString()), new Properties(), w);
        assertNull(under.dump());
        assertFalse(under.hostOnly());
        assertTrue(w.get(0).startsWith("ACC4J_DUMP=" + file.resolve("kernels") + ": the folder cannot be created")
                && w.get(0).endsWith("kernels are not dumped"), w::toString);
        assertNull(parse(Map.of(), p("acc4j.dump", file.toString()), w).dump());
        assertEquals("-Dacc4j.dump=" + file + ": " + file + " is a file, not a folder; kernels are not dumped", w.get(1));
    }

    private static Options parse(Map<String, String> env, Properties props, List<String> warnings) {
        return Options.parse(env, props, warnings::add);
    }

    private static Properties p(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return p;
    }
}
