package org.acc4j.runtime.profile;

import java.util.List;
import java.util.Locale;
import org.acc4j.runtime.profile.Profiler.KernelStats;
import org.acc4j.runtime.profile.Profiler.RegionStats;
import org.acc4j.runtime.profile.Profiler.Snapshot;
import org.acc4j.runtime.profile.Profiler.Traffic;

/**
 * Writes a {@link Snapshot} as text for people (in the style of PGI's {@code -Minfo=time}, times in microseconds)
 * or as JSON for tools (times in nanoseconds, sizes in bytes, every number an integer).
 *
 * <p>The JSON document:
 * <pre>{@code
 * {"format": "acc4j-profile", "version": 1, "device": "...",
 *  "regions": [{"kind": "kernels" | "data", "class": "...", "method": "...", "descriptor": "...", "name": "...",
 *               "entries": n, "hostRuns": n, "wallNs": n, "compileNs": n, "loadNs": n,
 *               "toDevice": {"copies": n, "bytes": n, "ns": n}, "toHost": {...},
 *               "kernels": [{"name": "...", "launches": n, "totalNs": n, "minNs": n, "maxNs": n, "meanNs": n,
 *                            "grid": [x, y, z], "block": [x, y, z]}]}],
 *  "outside": {"toDevice": {...}, "toHost": {...}, "kernels": [...]},
 *  "tuning": [{"kernel": "...", "sizeClass": "13x13", "launches": n, "ns": n, "extraNs": n, "outcome": "..."}]}
 * }</pre>
 * {@code tuning} lists the block shapes timed at run time (empty when nothing was tuned): the launches timed, their
 * device time and how much of it the candidates took above the kernel's own block.
 * For each region, the sum of its kernels' {@code totalNs} and both {@code ns} of its transfers is at most its
 * {@code wallNs}.
 */
public final class ProfileFormat {
    private ProfileFormat() {
    }

    /** How the multicore target names itself as the profile's device. */
    public static final String MULTICORE = "the host's cores (multicore";

    /** The profile as text, one block per region; ends with a newline. */
    public static String text(Snapshot s) {
        StringBuilder b = new StringBuilder();
        b.append("acc4j profile, device: ").append(s.device())
                .append(s.device().startsWith(MULTICORE) ? "; times in microseconds (each nest's run as host wall time)\n"
                        : "; times in microseconds (kernels timed with CUDA events, copies as host wall time)\n");
        if (s.regions().isEmpty() && empty(s.outside())) {
            b.append("    no region has run on the device\n");
        }
        for (RegionStats r : s.regions()) {
            b.append('\n').append(r.displayName()).append(r.kind() == Profiler.Kind.KERNELS ? "  kernels region" : "  data region")
                    .append("  ").append(r.descriptor()).append('\n');
            b.append("    reached ").append(times(r.entries()));
            if (r.hostRuns() > 0) {
                b.append(", ").append(r.hostRuns()).append(" of them on the host (not timed)");
            }
            b.append("; time(us): ").append(us(r.wallNanos()));
            if (r.kind() == Profiler.Kind.KERNELS) {
                b.append(", of which compile ").append(us(r.compileNanos())).append(" and load ").append(us(r.loadNanos()));
            }
            b.append('\n');
            body(b, r);
        }
        if (!empty(s.outside())) {
            b.append("\noutside regions (Acc routines, host runs' copies)\n");
            body(b, s.outside());
        }
        if (!s.tunings().isEmpty()) {
            b.append("\nblock shapes tuned at run time (device time of the timed launches, of which above the own block)\n");
            for (Profiler.Tuning t : s.tunings()) {
                b.append("    kernel ").append(t.kernel()).append(" [").append(t.sizeClass()).append("]: ")
                        .append(times(t.launches())).append("; time(us): ").append(us(t.nanos())).append(", above ")
                        .append(us(t.extraNanos())).append("; ").append(t.outcome()).append('\n');
            }
        }
        return b.toString();
    }

    private static boolean empty(RegionStats r) {
        return r.toDevice().copies() == 0 && r.toHost().copies() == 0 && r.kernels().isEmpty();
    }

    private static void body(StringBuilder b, RegionStats r) {
        for (KernelStats k : r.kernels()) {
            b.append("    kernel ").append(k.name()).append(" launched ").append(times(k.launches()))
                    .append("; first grid: ").append(dims(k.grid())).append(" block: ").append(dims(k.block())).append('\n');
            b.append("        device time(us): total=").append(us(k.totalNanos())).append(" max=").append(us(k.maxNanos()))
                    .append(" min=").append(us(k.minNanos())).append(" avg=").append(us(k.meanNanos())).append('\n');
        }
        traffic(b, "to device", r.toDevice());
        traffic(b, "to host", r.toHost());
    }

    private static void traffic(StringBuilder b, String way, Traffic t) {
        if (t.copies() == 0) {
            return;
        }
        b.append("    copies ").append(way).append(": ").append(t.copies()).append(", ")
                .append(String.format(Locale.ROOT, "%,d", t.bytes())).append(" bytes; time(us): ").append(us(t.nanos()));
        if (t.nanos() > 0) {
            b.append(String.format(Locale.ROOT, " (%.2f GB/s)", (double) t.bytes() / t.nanos()));
        }
        b.append('\n');
    }

    private static String times(long n) {
        return n == 1 ? "1 time" : n + " times";
    }

    private static String us(long nanos) {
        return String.format(Locale.ROOT, "%,.1f", nanos / 1000.0);
    }

    private static String dims(int[] d) {
        return "[" + d[0] + "x" + d[1] + "x" + d[2] + "]";
    }

    // ------------------------------------------------------------------ JSON

    /** The profile as a JSON document (see the class comment); ends with a newline. */
    public static String json(Snapshot s) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"format\": \"acc4j-profile\",\n  \"version\": 1,\n  \"device\": ").append(string(s.device()))
                .append(",\n  \"regions\": [");
        List<RegionStats> rs = s.regions();
        for (int i = 0; i < rs.size(); i++) {
            RegionStats r = rs.get(i);
            b.append(i > 0 ? "," : "").append("\n    {\"kind\": ").append(string(r.kind().name().toLowerCase(Locale.ROOT)))
                    .append(", \"class\": ").append(string(r.owner()))
                    .append(", \"method\": ").append(string(r.method()))
                    .append(", \"descriptor\": ").append(string(r.descriptor()))
                    .append(", \"name\": ").append(string(r.displayName()))
                    .append(",\n     \"entries\": ").append(r.entries())
                    .append(", \"hostRuns\": ").append(r.hostRuns())
                    .append(", \"wallNs\": ").append(r.wallNanos())
                    .append(", \"compileNs\": ").append(r.compileNanos())
                    .append(", \"loadNs\": ").append(r.loadNanos()).append(",\n     ");
            moves(b, r);
            b.append('}');
        }
        b.append(rs.isEmpty() ? "],\n" : "\n  ],\n").append("  \"outside\": {");
        moves(b, s.outside());
        b.append("},\n  \"tuning\": [");
        for (int i = 0; i < s.tunings().size(); i++) {
            Profiler.Tuning t = s.tunings().get(i);
            b.append(i > 0 ? ", " : "").append("{\"kernel\": ").append(string(t.kernel()))
                    .append(", \"sizeClass\": ").append(string(t.sizeClass()))
                    .append(", \"launches\": ").append(t.launches())
                    .append(", \"ns\": ").append(t.nanos())
                    .append(", \"extraNs\": ").append(t.extraNanos())
                    .append(", \"outcome\": ").append(string(t.outcome())).append('}');
        }
        return b.append("]\n}\n").toString();
    }

    private static void moves(StringBuilder b, RegionStats r) {
        b.append("\"toDevice\": ");
        traffic(b, r.toDevice());
        b.append(", \"toHost\": ");
        traffic(b, r.toHost());
        b.append(", \"kernels\": [");
        for (int i = 0; i < r.kernels().size(); i++) {
            KernelStats k = r.kernels().get(i);
            b.append(i > 0 ? ", " : "").append("{\"name\": ").append(string(k.name()))
                    .append(", \"launches\": ").append(k.launches())
                    .append(", \"totalNs\": ").append(k.totalNanos())
                    .append(", \"minNs\": ").append(k.minNanos())
                    .append(", \"maxNs\": ").append(k.maxNanos())
                    .append(", \"meanNs\": ").append(k.meanNanos())
                    .append(", \"grid\": ").append(array(k.grid()))
                    .append(", \"block\": ").append(array(k.block())).append('}');
        }
        b.append(']');
    }

    private static void traffic(StringBuilder b, Traffic t) {
        b.append("{\"copies\": ").append(t.copies()).append(", \"bytes\": ").append(t.bytes()).append(", \"ns\": ")
                .append(t.nanos()).append('}');
    }

    private static String array(int[] d) {
        return "[" + d[0] + ", " + d[1] + ", " + d[2] + "]";
    }

    /** A JSON string literal: quotes, backslashes and control characters escaped. */
    static String string(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
