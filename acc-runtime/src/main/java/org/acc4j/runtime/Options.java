package org.acc4j.runtime;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The runtime's settings, read once at start-up from the environment (OpenACC's names) and system properties
 * (which win). Bad values are errors that name the variable and the values allowed.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>environment</th><th>system property</th><th>values</th></tr>
 *   <tr><td>{@code ACC_DEVICE_TYPE}</td><td>{@code acc.device.type}</td><td>{@code nvidia} (also {@code default},
 *       {@code not_host}) or {@code host}, any case</td></tr>
 *   <tr><td>{@code ACC_DEVICE_NUM}</td><td>{@code acc.device.num}</td><td>0, 1, ... (a number beyond the device
 *       count is not checked here: the runtime then runs every region on the host, saying why)</td></tr>
 *   <tr><td>{@code ACC4J_REPORT}</td><td>{@code acc4j.report}</td><td>a switch</td></tr>
 *   <tr><td>{@code ACC4J_PROFILE}</td><td>{@code acc4j.profile}</td><td>a switch</td></tr>
 *   <tr><td>{@code ACC4J_PROFILE_JSON}</td><td>{@code acc4j.profile.json}</td><td>a file path, in an existing
 *       folder</td></tr>
 *   <tr><td>{@code ACC4J_HOIST}</td><td>{@code acc4j.hoist}</td><td>a switch, on when unset</td></tr>
 * </table>
 * A switch is on for {@code 1}, {@code true}, {@code yes}, {@code on} and off for {@code 0}, {@code false},
 * {@code no}, {@code off} (any case); unset or blank is off.
 *
 * @param hostOnly {@code ACC_DEVICE_TYPE=host}: every region runs as plain Java
 * @param deviceNumber {@code ACC_DEVICE_NUM}: the GPU to use (0 by default)
 * @param report {@code acc4j.report} / {@code ACC4J_REPORT}: print the compiler's decisions to stderr
 * @param profile {@code acc4j.profile} / {@code ACC4J_PROFILE}: print the time profile to stderr at exit
 * @param profileJson {@code acc4j.profile.json} / {@code ACC4J_PROFILE_JSON}: where to write the profile as JSON
 *                    at exit, or null
 * @param dump {@code acc4j.dump} / {@code ACC4J_DUMP}: a directory to write each kernel's PTX and CUDA C into, or null
 * @param sourcePath {@code acc4j.sourcepath} / {@code ACC4J_SOURCEPATH}: where the dump finds the Java sources
 *     ({@code dir1:dir2}), or null
 * @param hoistChecks {@code acc4j.hoist} / {@code ACC4J_HOIST}: prove affine array accesses in bounds on the host
 *     before each launch and launch kernels without those checks (on by default); off keeps every check in the
 *     kernel, for measuring what the checks cost
 */
public record Options(boolean hostOnly, int deviceNumber, boolean report, boolean profile, Path profileJson, Path dump,
                      String sourcePath, boolean hoistChecks) {

    public static Options fromEnvironment() {
        return parse(System.getenv(), System.getProperties());
    }

    /** Whether the runtime collects a time profile: printed, written as JSON, or both. */
    public boolean profiling() {
        return profile || profileJson != null;
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
        boolean report = flag("ACC4J_REPORT", props.getProperty("acc4j.report", env.get("ACC4J_REPORT")));
        boolean profile = flag("ACC4J_PROFILE", props.getProperty("acc4j.profile", env.get("ACC4J_PROFILE")));
        Path json = jsonPath(props.getProperty("acc4j.profile.json", env.get("ACC4J_PROFILE_JSON")));
        String dump = props.getProperty("acc4j.dump", env.get("ACC4J_DUMP"));
        String sources = props.getProperty("acc4j.sourcepath", env.get("ACC4J_SOURCEPATH"));
        String hoist = props.getProperty("acc4j.hoist", env.get("ACC4J_HOIST"));
        boolean hoistChecks = hoist == null || hoist.isBlank() || flag("ACC4J_HOIST", hoist);
        return new Options(host, device, report, profile, json, dump == null || dump.isBlank() ? null : Path.of(dump.trim()),
                sources, hoistChecks);
    }

    private static boolean flag(String name, String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("acc4j: " + name + "=" + value
                    + " is not a switch; use 1, true, yes or on, or 0, false, no or off");
        };
    }

    /** The profile's JSON file: its folder must exist and it must not be a folder itself. */
    private static Path jsonPath(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Path path;
        try {
            path = Path.of(value.trim()).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("acc4j: ACC4J_PROFILE_JSON=" + value + " is not a file path ("
                    + e.getReason() + ")");
        }
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException("acc4j: ACC4J_PROFILE_JSON=" + value
                    + " is a folder; name the JSON file to write, e.g. " + path.resolve("acc4j-profile.json"));
        }
        Path parent = path.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("acc4j: ACC4J_PROFILE_JSON=" + value + ": the folder " + parent
                    + " does not exist");
        }
        return path;
    }
}
