package org.acc4j.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A run folder as {@code scripts/bench-run.sh} leaves it: {@code run-info.txt} (date, commit, GPU, driver, skipped
 * classes), one JMH JSON per benchmark class with its log ({@code jmh-<Name>.json}; a pass with other JVM options,
 * such as the bounds-check pass, {@code jmh-<Name>-<tag>.json}), and {@code anchors.log}.
 *
 * @param dir      the folder
 * @param info     {@code key: value} lines of run-info.txt, first occurrence of each key
 * @param skipped  classes the time budget left out, as run-info.txt lists them
 * @param results  every JMH result of every JSON file in the folder, tagged with the file's pass
 * @param jmh      JMH's settings and the JVM, from the first result of the main pass
 * @param anchors  the peers, or an empty log where there is no anchors.log
 * @param notTimed setups that refused to time a benchmark, from the JMH logs (host runs, wrong results)
 */
public record Run(Path dir, Map<String, String> info, List<String> skipped, List<Measurement> results, String jmh,
                  AnchorsLog anchors, List<String> notTimed) {

    public static Run load(Path dir) {
        try {
            Map<String, String> info = new LinkedHashMap<>();
            List<String> skipped = new ArrayList<>();
            Path infoFile = dir.resolve("run-info.txt");
            if (Files.exists(infoFile)) {
                for (String line : Files.readAllLines(infoFile, StandardCharsets.UTF_8)) {
                    int colon = line.indexOf(':');
                    if (colon > 0) {
                        String key = line.substring(0, colon).trim();
                        String value = line.substring(colon + 1).trim();
                        if (key.equals("skipped")) {
                            skipped.add(value);
                        } else {
                            info.putIfAbsent(key, value);
                        }
                    }
                }
            }
            List<Measurement> results = new ArrayList<>();
            String jmh = "";
            List<String> notTimed = new ArrayList<>();
            for (Path f : sorted(dir)) {
                String name = f.getFileName().toString();
                if (name.endsWith(".json")) {
                    String json = Files.readString(f, StandardCharsets.UTF_8);
                    if (json.isBlank()) {
                        continue;
                    }
                    String tag = tag(name);
                    JmhJson.parse(json).forEach(m -> results.add(m.withTag(tag)));
                    if (jmh.isEmpty() && tag.isEmpty()) {
                        jmh = JmhJson.settings(json);
                    }
                } else if (name.startsWith("jmh-") && name.endsWith(".log")) {
                    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                        int at = line.indexOf("IllegalStateException: ");
                        if (at >= 0) {
                            String tag = tag(name.substring(0, name.length() - ".log".length()) + ".json");
                            notTimed.add((tag.isEmpty() ? "" : "[" + tag + "] ")
                                    + line.substring(at + "IllegalStateException: ".length()).trim());
                        }
                    }
                }
            }
            Path log = dir.resolve("anchors.log");
            AnchorsLog anchors = Files.exists(log) ? AnchorsLog.parse(Files.readString(log, StandardCharsets.UTF_8))
                    : new AnchorsLog("", List.of());
            return new Run(dir, info, skipped, results, jmh, anchors, notTimed);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the run folder " + dir, e);
        }
    }

    /** The pass of a result file: {@code jmh-Jacobi-checked.json} → {@code checked}; empty for the main pass. */
    static String tag(String fileName) {
        if (!fileName.startsWith("jmh-") || !fileName.endsWith(".json")) {
            return "";
        }
        String stem = fileName.substring("jmh-".length(), fileName.length() - ".json".length());
        int dash = stem.indexOf('-');
        return dash < 0 ? "" : stem.substring(dash + 1);
    }

    /** Whether any acc4j figure of this run may have come from the host (a smoke run without a GPU). */
    public boolean hostRun() {
        return "1".equals(info.get("allow-host")) || results.stream().anyMatch(Measurement::onHost);
    }

    private static List<Path> sorted(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
