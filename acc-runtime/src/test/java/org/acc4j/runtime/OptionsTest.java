package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class OptionsTest {
    @Test
    void defaultsToTheFirstGpu() {
        Options o = Options.parse(Map.of(), new Properties());
        assertFalse(o.hostOnly());
        assertEquals(0, o.deviceNumber());
        assertFalse(o.report());
    }

    @Test
    void readsOpenAccEnvironmentVariables() {
        Options o = Options.parse(Map.of("ACC_DEVICE_TYPE", "HOST", "ACC_DEVICE_NUM", "1", "ACC4J_REPORT", "1"),
                new Properties());
        assertTrue(o.hostOnly());
        assertEquals(1, o.deviceNumber());
        assertTrue(o.report());
        assertFalse(Options.parse(Map.of("ACC_DEVICE_TYPE", "nvidia"), new Properties()).hostOnly());
    }

    @Test
    void systemPropertiesWin() {
        Properties p = new Properties();
        p.setProperty("acc.device.type", "nvidia");
        assertFalse(Options.parse(Map.of("ACC_DEVICE_TYPE", "host"), p).hostOnly());
    }

    @Test
    void badValuesNameTheVariableAndTheChoices() {
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Map.of("ACC_DEVICE_TYPE", "radeon"), new Properties()));
        assertTrue(type.getMessage().contains("ACC_DEVICE_TYPE=radeon") && type.getMessage().contains("nvidia or host"));
        IllegalArgumentException num = assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Map.of("ACC_DEVICE_NUM", "-2"), new Properties()));
        assertTrue(num.getMessage().contains("ACC_DEVICE_NUM=-2"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse(Map.of("ACC_DEVICE_NUM", "x"), new Properties()));
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
