package org.acc4j.runtime;

import java.util.Locale;
import java.util.Map;

/**
 * The runtime's settings, read once at start-up from the environment (OpenACC's names) and system properties
 * (which win). Bad values are errors that name the variable and the values allowed.
 *
 * @param hostOnly {@code ACC_DEVICE_TYPE=host}: every region runs as plain Java
 * @param deviceNumber {@code ACC_DEVICE_NUM}: the GPU to use (0 by default)
 * @param report {@code acc4j.report} / {@code ACC4J_REPORT}: print the compiler's decisions to stderr
 * @param dump {@code acc4j.dump} / {@code ACC4J_DUMP}: a directory to write each kernel's PTX and CUDA C into, or null
 * @param sourcePath {@code acc4j.sourcepath} / {@code ACC4J_SOURCEPATH}: where the dump finds the Java sources
 *     ({@code dir1:dir2}), or null
 */
public record Options(boolean hostOnly, int deviceNumber, boolean report, java.nio.file.Path dump, String sourcePath) {

    public static Options fromEnvironment() {
        return parse(System.getenv(), System.getProperties());
    }

    static Options parse(Map<String, String> env, java.util.Properties props) {
        String type = props.getProperty("acc.device.type", env.get("ACC_DEVICE_TYPE"));
        boolean host = false;
        if (type != null && !type.isBlank()) {
            switch (type.trim().toLowerCase(Locale.ROOT)) {
                case "host" -> host = true;
                case "nvidia", "default", "not_host" -> host = false;
                default -> throw new IllegalArgumentException("acc4j: ACC_DEVICE_TYPE=" + type
                        + " is not a device type acc4j knows; use nvidia or host");
            }
        }
        String num = props.getProperty("acc.device.num", env.get("ACC_DEVICE_NUM"));
        int device = 0;
        if (num != null && !num.isBlank()) {
            try {
                device = Integer.parseInt(num.trim());
            } catch (NumberFormatException e) {
                device = -1;
            }
            if (device < 0) {
                throw new IllegalArgumentException("acc4j: ACC_DEVICE_NUM=" + num + " is not a device number (0, 1, ...)");
            }
        }
        String report = props.getProperty("acc4j.report", env.get("ACC4J_REPORT"));
        String dump = props.getProperty("acc4j.dump", env.get("ACC4J_DUMP"));
        String sources = props.getProperty("acc4j.sourcepath", env.get("ACC4J_SOURCEPATH"));
        return new Options(host, device, report != null && !report.equals("false") && !report.equals("0"),
                dump == null || dump.isBlank() ? null : java.nio.file.Path.of(dump.trim()), sources);
    }
}
