package org.acc4j.runtime;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The runtime's settings, read once at start-up from the environment (OpenACC's names) and system properties
 * (which win). A message about a setting names it as the user gave it: {@code -Dacc.device.type=foo} or
 * {@code ACC_DEVICE_TYPE=foo}, with the values allowed.
 *
 * <p>A bad device setting ({@code ACC_DEVICE_TYPE}, {@code ACC_DEVICE_NUM}) is an error: the runtime then runs
 * every region as plain Java. A bad diagnostic setting (the report, the profile, the dump, hoisting) is a warning
 * and that setting keeps its default; a dump folder that cannot be created is a warning and nothing is dumped.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>environment</th><th>system property</th><th>values</th></tr>
 *   <tr><td>{@code ACC_DEVICE_TYPE}</td><td>{@code acc.device.type}</td><td>{@code nvidia} (also {@code default},
 *       {@code not_host}), {@code multicore} or {@code host}, any case</td></tr>
 *   <tr><td>{@code ACC_NUM_CORES}</td><td>{@code acc.num.cores}</td><td>1, 2, ...: the multicore target's threads
 *       (the available processors when unset)</td></tr>
 *   <tr><td>{@code ACC_DEVICE_NUM}</td><td>{@code acc.device.num}</td><td>0, 1, ... (a number beyond the device
 *       count is not checked here: the runtime then runs every region on the host, saying why)</td></tr>
 *   <tr><td>{@code ACC4J_REPORT}</td><td>{@code acc4j.report}</td><td>a switch</td></tr>
 *   <tr><td>{@code ACC4J_PROFILE}</td><td>{@code acc4j.profile}</td><td>a switch</td></tr>
 *   <tr><td>{@code ACC4J_PROFILE_JSON}</td><td>{@code acc4j.profile.json}</td><td>a file path, in an existing
 *       folder</td></tr>
 *   <tr><td>{@code ACC4J_DUMP}</td><td>{@code acc4j.dump}</td><td>a folder, created when missing</td></tr>
 *   <tr><td>{@code ACC4J_SOURCEPATH}</td><td>{@code acc4j.sourcepath}</td><td>folders, {@code dir1:dir2}</td></tr>
 *   <tr><td>{@code ACC4J_HOIST}</td><td>{@code acc4j.hoist}</td><td>a switch, on when unset</td></tr>
 *   <tr><td>{@code ACC4J_MAPPED}</td><td>{@code acc4j.mapped}</td><td>a switch, on when unset</td></tr>
 *   <tr><td>{@code ACC4J_CACHE}</td><td>{@code acc4j.cache}</td><td>{@code cubin} (when unset), {@code driver} or
 *       {@code off}</td></tr>
 *   <tr><td>{@code ACC4J_CACHE_DIR}</td><td>{@code acc4j.cache.dir}</td><td>a folder, created when missing
 *       ({@code $XDG_CACHE_HOME/acc4j/kernels}, else {@code ~/.cache/acc4j/kernels}, when unset)</td></tr>
 *   <tr><td>{@code ACC4J_AUTOTUNE}</td><td>{@code acc4j.autotune}</td><td>a switch, on when unset</td></tr>
 *   <tr><td>{@code ACC4J_DEFER}</td><td>{@code acc4j.defer}</td><td>a switch, on when unset</td></tr>
 * </table>
 * A switch is on for {@code 1}, {@code true}, {@code yes}, {@code on} and off for {@code 0}, {@code false},
 * {@code no}, {@code off} (any case); unset or blank is its default.
 *
 * @param hostOnly {@code ACC_DEVICE_TYPE=host}: every region runs as plain Java, on the calling thread
 * @param multicore {@code ACC_DEVICE_TYPE=multicore}: no GPU is used; every nest runs on the host's cores (the
 *     multicore target, also the choice where there is no GPU and the type is not {@code host})
 * @param cores {@code ACC_NUM_CORES}: the multicore target's threads, or 0 for the available processors
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
 * @param mapped {@code acc4j.mapped} / {@code ACC4J_MAPPED}: keep the kernels' error record and launch parameters
 *     in mapped pinned host memory, so that a launch copies nothing back (on by default); off keeps the error record
 *     in device memory, copied back after each launch
 * @param cache {@code acc4j.cache} / {@code ACC4J_CACHE}: how kernels compiled in an earlier run load quickly:
 *     {@link CacheMode#DRIVER} (the default) leaves it to the CUDA driver's own JIT cache ({@code CUDA_CACHE_PATH}),
 *     {@link CacheMode#CUBIN} keeps their machine code in {@code cacheDir}, {@link CacheMode#OFF} keeps nothing of
 *     ours. The driver's route is the default: it loads a cached kernel faster, and its JIT compiles a module whole,
 *     while the linker behind the cubin cache compiles PTX as relocatable code, in which calls into the templates'
 *     routines (scans, reductions, the math library) stay calls
 * @param cacheDir {@code acc4j.cache.dir} / {@code ACC4J_CACHE_DIR}: the folder of the cubin cache
 * @param autotune {@code acc4j.autotune} / {@code ACC4J_AUTOTUNE}: time other block shapes on a long kernel's first
 *     calls and keep the fastest ({@link org.acc4j.runtime.tune.Tuner}; on by default)
 * @param defer {@code acc4j.defer} / {@code ACC4J_DEFER}: a synchronous call whose kernels cannot raise a Java
 *     exception, on data already present, returns once they are queued; the next operation that needs the device's
 *     data waits for them (on by default); off waits for every launch before the call returns
 * @param given how the user gave each setting that is set, by environment variable name: {@code ACC_DEVICE_NUM}
 *     to {@code -Dacc.device.num=1} or {@code ACC_DEVICE_NUM=1}
 */
public record Options(boolean hostOnly, int deviceNumber, boolean report, boolean profile, Path profileJson, Path dump,
                      String sourcePath, boolean hoistChecks, boolean mapped, CacheMode cache, Path cacheDir,
                      Map<String, String> given, boolean multicore, int cores, boolean autotune, boolean defer) {

    /** How kernels compiled in an earlier run are found again. */
    public enum CacheMode {
        /** Their cubins are kept in the cache folder and loaded as they are. */
        CUBIN,
        /** Their PTX is loaded each time; the CUDA driver's JIT cache may keep its own cubins. */
        DRIVER,
        /** Neither: the driver's cache is left as it is configured, ours keeps nothing. */
        OFF
    }

    private static final String SWITCH_VALUES = "use 1, true, yes or on, or 0, false, no or off";

    /** A switch's value: true for 1, true, yes or on, false for 0, false, no or off (any case), else null. */
    static Boolean switchValue(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> Boolean.TRUE;
            case "0", "false", "no", "off" -> Boolean.FALSE;
            default -> null;
        };
    }

    public Options {
        given = Map.copyOf(given);
    }

    /** Settings without the multicore ones (the target's default: where there is no GPU, all processors). */
    public Options(boolean hostOnly, int deviceNumber, boolean report, boolean profile, Path profileJson, Path dump,
                   String sourcePath, boolean hoistChecks, boolean mapped, CacheMode cache, Path cacheDir,
                   Map<String, String> given) {
        this(hostOnly, deviceNumber, report, profile, profileJson, dump, sourcePath, hoistChecks, mapped, cache, cacheDir,
                given, false, 0);
    }

    /** Settings with autotuning on (its default). */
    public Options(boolean hostOnly, int deviceNumber, boolean report, boolean profile, Path profileJson, Path dump,
                   String sourcePath, boolean hoistChecks, boolean mapped, CacheMode cache, Path cacheDir,
                   Map<String, String> given, boolean multicore, int cores) {
        this(hostOnly, deviceNumber, report, profile, profileJson, dump, sourcePath, hoistChecks, mapped, cache, cacheDir,
                given, multicore, cores, true);
    }

    /** Settings with deferred launches on (their default). */
    public Options(boolean hostOnly, int deviceNumber, boolean report, boolean profile, Path profileJson, Path dump,
                   String sourcePath, boolean hoistChecks, boolean mapped, CacheMode cache, Path cacheDir,
                   Map<String, String> given, boolean multicore, int cores, boolean autotune) {
        this(hostOnly, deviceNumber, report, profile, profileJson, dump, sourcePath, hoistChecks, mapped, cache, cacheDir,
                given, multicore, cores, autotune, true);
    }

    /** The multicore target's thread count: {@code ACC_NUM_CORES}, else the available processors. */
    public int threads() {
        return cores > 0 ? cores : Runtime.getRuntime().availableProcessors();
    }

    /** The settings of this JVM; warnings about diagnostic settings are logged. */
    public static Options fromEnvironment() {
        return parse(System.getenv(), System.getProperties(), Log::warning);
    }

    /** Whether the runtime collects a time profile: printed, written as JSON, or both. */
    public boolean profiling() {
        return profile || profileJson != null;
    }

    /**
     * How the user gave a setting, e.g. {@code -Dacc.device.num=1} or {@code ACC_DEVICE_NUM=1}, for messages; the
     * variable's name when it is not set.
     */
    public String given(String variable) {
        return given.getOrDefault(variable, variable);
    }

    static Options parse(Map<String, String> env, Properties props) {
        return parse(env, props, Log::warning);
    }

    /**
     * @param warnings receives each warning about a diagnostic setting (without the {@code acc4j: } prefix)
     * @throws IllegalArgumentException for a bad device setting, naming it as given
     */
    static Options parse(Map<String, String> env, Properties props, Consumer<String> warnings) {
        Map<String, String> given = new LinkedHashMap<>();
        Reader in = new Reader(env, props, given);
        String type = in.read("ACC_DEVICE_TYPE", "acc.device.type");
        boolean host = false;
        boolean multicore = false;
        if (type != null) {
            switch (type.trim().toLowerCase(Locale.ROOT)) {
                case "host" -> host = true;
                case "multicore" -> multicore = true;
                case "nvidia", "default", "not_host" -> host = false;
                default -> throw new IllegalArgumentException("acc4j: " + given.get("ACC_DEVICE_TYPE")
                        + " is not a device type acc4j knows; use nvidia, multicore or host");
            }
        }
        String coresText = in.read("ACC_NUM_CORES", "acc.num.cores");
        int cores = 0;
        if (coresText != null) {
            try {
                cores = Integer.parseInt(coresText.trim());
            } catch (NumberFormatException e) {
                cores = -1;
            }
            if (cores < 1) {
                throw new IllegalArgumentException("acc4j: " + given.get("ACC_NUM_CORES")
                        + " is not a thread count (1, 2, ...)");
            }
        }
        String num = in.read("ACC_DEVICE_NUM", "acc.device.num");
        int device = 0;
        if (num != null) {
            try {
                device = Integer.parseInt(num.trim());
            } catch (NumberFormatException e) {
                device = -1;
            }
            if (device < 0) {
                throw new IllegalArgumentException("acc4j: " + given.get("ACC_DEVICE_NUM")
                        + " is not a device number (0, 1, ...)");
            }
        }
        boolean report = in.flag("ACC4J_REPORT", "acc4j.report", false, "the compile report stays off", warnings);
        boolean profile = in.flag("ACC4J_PROFILE", "acc4j.profile", false, "the profile stays off", warnings);
        Path json = jsonPath(in.read("ACC4J_PROFILE_JSON", "acc4j.profile.json"), given.get("ACC4J_PROFILE_JSON"),
                warnings);
        Path dump = dumpFolder(in.read("ACC4J_DUMP", "acc4j.dump"), given.get("ACC4J_DUMP"), warnings);
        String sources = in.read("ACC4J_SOURCEPATH", "acc4j.sourcepath");
        boolean hoistChecks = in.flag("ACC4J_HOIST", "acc4j.hoist", true, "bounds checks stay hoisted", warnings);
        boolean mapped = in.flag("ACC4J_MAPPED", "acc4j.mapped", true, "the error record stays mapped", warnings);
        String mode = in.read("ACC4J_CACHE", "acc4j.cache");
        CacheMode cache = CacheMode.DRIVER;
        if (mode != null) {
            switch (mode.trim().toLowerCase(Locale.ROOT)) {
                case "cubin", "1", "true", "yes", "on" -> cache = CacheMode.CUBIN;
                case "driver" -> cache = CacheMode.DRIVER;
                case "off", "0", "false", "no" -> cache = CacheMode.OFF;
                default -> warnings.accept(given.get("ACC4J_CACHE") + " is not a cache mode; use cubin, driver or off"
                        + " (the driver's JIT cache stays in use)");
            }
        }
        Path cacheDir = cacheFolder(in.read("ACC4J_CACHE_DIR", "acc4j.cache.dir"), env, props);
        boolean autotune = in.flag("ACC4J_AUTOTUNE", "acc4j.autotune", true, "autotuning stays on", warnings);
        boolean defer = in.flag("ACC4J_DEFER", "acc4j.defer", true, "launches stay deferred", warnings);
        return new Options(host, device, report, profile, json, dump, sources, hoistChecks, mapped, cache, cacheDir,
                given, multicore, cores, autotune, defer);
    }

    /**
     * The cubin cache's folder: as given, else {@code $XDG_CACHE_HOME/acc4j/kernels}, else
     * {@code ~/.cache/acc4j/kernels}.
     */
    private static Path cacheFolder(String value, Map<String, String> env, Properties props) {
        try {
            if (value != null) {
                return Path.of(value.trim()).toAbsolutePath();
            }
            String xdg = env.get("XDG_CACHE_HOME");
            if (xdg != null && !xdg.isBlank()) {
                return Path.of(xdg.trim(), "acc4j", "kernels").toAbsolutePath();
            }
            return Path.of(props.getProperty("user.home", "."), ".cache", "acc4j", "kernels").toAbsolutePath();
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** Reads settings, the system property winning, and records how each was given. */
    private record Reader(Map<String, String> env, Properties props, Map<String, String> given) {
        /** The value, or null when unset or blank. */
        String read(String variable, String property) {
            String p = props.getProperty(property);
            String value = p != null ? p : env.get(variable);
            if (value == null || value.isBlank()) {
                return null;
            }
            given.put(variable, (p != null ? "-D" + property : variable) + "=" + value);
            return value;
        }

        boolean flag(String variable, String property, boolean fallback, String meaning, Consumer<String> warnings) {
            String value = read(variable, property);
            if (value == null) {
                return fallback;
            }
            Boolean on = switchValue(value);
            if (on == null) {
                warnings.accept(given.get(variable) + " is not a switch; " + SWITCH_VALUES + " (" + meaning + ")");
                return fallback;
            }
            return on;
        }
    }

    /** The profile's JSON file: its folder must exist and it must not be a folder itself; else a warning and null. */
    private static Path jsonPath(String value, String given, Consumer<String> warnings) {
        if (value == null) {
            return null;
        }
        Path path;
        try {
            path = Path.of(value.trim()).toAbsolutePath();
        } catch (InvalidPathException e) {
            warnings.accept(given + " is not a file path (" + e.getReason() + "); no JSON profile is written");
            return null;
        }
        if (Files.isDirectory(path)) {
            warnings.accept(given + " is a folder; name the JSON file to write, e.g. " + path.resolve("acc4j-profile.json")
                    + "; no JSON profile is written");
            return null;
        }
        Path parent = path.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            warnings.accept(given + ": the folder " + parent + " does not exist; no JSON profile is written");
            return null;
        }
        return path;
    }

    /** The dump folder, created if missing; a warning and null when it cannot be. */
    private static Path dumpFolder(String value, String given, Consumer<String> warnings) {
        if (value == null) {
            return null;
        }
        try {
            Path folder = Path.of(value.trim());
            Files.createDirectories(folder);
            return folder;
        } catch (InvalidPathException e) {
            warnings.accept(given + " is not a folder path (" + e.getReason() + "); kernels are not dumped");
        } catch (FileAlreadyExistsException e) {
            warnings.accept(given + ": " + e.getFile() + " is a file, not a folder; kernels are not dumped");
        } catch (IOException | SecurityException e) {
            warnings.accept(given + ": the folder cannot be created (" + e + "); kernels are not dumped");
        }
        return null;
    }
}
