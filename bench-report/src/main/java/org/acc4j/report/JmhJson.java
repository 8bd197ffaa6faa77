package org.acc4j.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Reads JMH's JSON result file ({@code -rf json}): an array with one object per benchmark and parameter set. */
public final class JmhJson {
    private JmhJson() {
    }

    /**
     * The results of our benchmark classes ({@code org.acc4j.jmh.XBench.mode}, {@code mode2d} for the
     * {@code double[][]} form); others are skipped.
     */
    public static List<Measurement> parse(String json) {
        JsonElement root = JsonParser.parseString(json);
        if (!root.isJsonArray()) {
            throw new IllegalArgumentException("not a JMH result file: the top level is not an array");
        }
        List<Measurement> out = new ArrayList<>();
        for (JsonElement e : (JsonArray) root) {
            JsonObject o = e.getAsJsonObject();
            String benchmark = o.get("benchmark").getAsString();
            String[] parts = benchmark.split("\\.");
            if (parts.length < 2 || !parts[parts.length - 2].endsWith("Bench")) {
                continue;
            }
            String cls = parts[parts.length - 2];
            String sample = cls.substring(0, cls.length() - "Bench".length()).toLowerCase(Locale.ROOT);
            String mode = parts[parts.length - 1];
            String form = Measurement.FLAT;
            if (mode.endsWith(Measurement.ROWS)) {
                mode = mode.substring(0, mode.length() - Measurement.ROWS.length());
                form = Measurement.ROWS;
            }
            JsonObject params = o.has("params") ? o.getAsJsonObject("params") : new JsonObject();
            String size = params.has("size") ? params.get("size").getAsString() : "";
            String variant = params.has("variant") ? params.get("variant").getAsString() : "";
            JsonObject metric = o.getAsJsonObject("primaryMetric");
            double toMs = toMillis(metric.get("scoreUnit").getAsString(), benchmark);
            double score = metric.get("score").getAsDouble() * toMs;
            JsonElement err = metric.get("scoreError");
            double error = err == null || !err.isJsonPrimitive() || !err.getAsJsonPrimitive().isNumber()
                    ? Double.NaN : err.getAsDouble() * toMs;
            boolean onHost = false;
            if (o.has("jvmArgs")) {
                for (JsonElement a : o.getAsJsonArray("jvmArgs")) {
                    onHost |= a.getAsString().equals("-Dbench.allowHost=true");
                }
            }
            out.add(new Measurement(sample, mode, size, variant, score, error, onHost, form, ""));
        }
        return out;
    }

    /** JMH's settings and the JVM of the first result, for the report's header. */
    public static String settings(String json) {
        JsonArray all = JsonParser.parseString(json).getAsJsonArray();
        if (all.isEmpty()) {
            return "";
        }
        JsonObject o = all.get(0).getAsJsonObject();
        return String.format(Locale.ROOT, "JMH %s, %s %s, forks %s, warm-up %s × %s, measurement %s × %s (first result)"
                        + ", mode %s",
                str(o, "jmhVersion"), str(o, "vmName"), str(o, "jdkVersion"), str(o, "forks"),
                str(o, "warmupIterations"), str(o, "warmupTime"), str(o, "measurementIterations"),
                str(o, "measurementTime"), str(o, "mode"));
    }

    private static String str(JsonObject o, String key) {
        return o.has(key) && !o.get(key).isJsonNull() ? o.get(key).getAsString() : "?";
    }

    private static double toMillis(String unit, String benchmark) {
        return switch (unit) {
            case "s/op" -> 1e3;
            case "ms/op" -> 1;
            case "us/op" -> 1e-3;
            case "ns/op" -> 1e-6;
            default -> throw new IllegalArgumentException(benchmark + ": score unit " + unit
                    + " is not a time per operation (run in -bm avgt or ss)");
        };
    }
}
