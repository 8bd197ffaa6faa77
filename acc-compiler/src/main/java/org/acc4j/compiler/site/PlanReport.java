package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.List;

/**
 * A plan's decisions as text (the report's lines) and as JSON ({@code explain --json}): each nest with its source
 * line, whether it runs on the device and how, or why it stays on the host, and what host code between the nests
 * makes the runtime move.
 */
public final class PlanReport {
    private PlanReport() {
    }

    /** The report's lines for a plan, each prefixed with its source position. */
    public static List<String> lines(MethodPlan p) {
        List<String> out = new ArrayList<>();
        String file = p.source() != null ? p.source() : p.owner();
        if (p.nests().isEmpty()) {
            out.add(file + ": " + p.displayName() + ": no loop nest: the method runs as plain Java");
            return out;
        }
        int device = (int) p.nests().stream().filter(MethodPlan.Nest::offloaded).count();
        out.add(file + ": " + p.displayName() + ": " + p.nests().size() + " loop nest" + plural(p.nests().size())
                + ", " + device + " on the device; the code around " + (p.nests().size() == 1 ? "it" : "them")
                + " runs as Java");
        Clauses c = p.clauses();
        if (c.problem() != null) {
            out.add(file + ": " + p.displayName() + ": every call is refused: " + c.problem());
        } else if (c.conditional()) {
            out.add(file + ": " + p.displayName() + ": " + c.condition() + ": a call runs as plain Java where it is false");
        }
        if (c.defaultPresent() && c.problem() == null) {
            out.add(file + ": " + p.displayName() + ": defaultPresent = true: every array a nest uses must be present");
        }
        for (MethodPlan.Nest n : p.nests()) {
            String at = file + ":" + n.line() + ": ";
            if (n.offloaded()) {
                out.add(at + "nest on the device: kernel " + n.kernel() + ": " + n.mapping());
                for (String note : n.notes()) {
                    if (!note.startsWith("kernel ")) {
                        out.add(at + "  " + note);
                    }
                }
                MethodPlan.Site s = p.sites().get(n.site());
                if (!s.liveOuts().isEmpty()) {
                    out.add(at + "  gives back " + names(s.liveOuts()) + " to the host code after it");
                }
                out.add(at + "  host code after it: " + effects(s.after()));
            } else {
                out.add(at + "nest on the host: " + String.join("; ", n.reasons()));
            }
        }
        return out;
    }

    private static String names(List<MethodPlan.Local> locals) {
        List<String> n = new ArrayList<>();
        for (MethodPlan.Local l : locals) {
            n.add(l.name());
        }
        return String.join(", ", n);
    }

    /** What host code does to arrays, as the runtime will act on it. */
    static String effects(List<Effect> effects) {
        List<String> reads = new ArrayList<>();
        List<String> writes = new ArrayList<>();
        for (Effect e : effects) {
            if (e.origin() instanceof Origin.Statics) {
                continue;
            }
            String what = (e.deep() ? "arrays reachable from " : "") + e.origin();
            (e.write() ? writes : reads).add(what);
        }
        if (reads.isEmpty() && writes.isEmpty()) {
            return "touches no array (nothing moves)";
        }
        String r = reads.isEmpty() ? "" : "reads " + String.join(", ", dedupe(reads))
                + " (copied to the host first if a kernel changed them)";
        String w = writes.isEmpty() ? "" : "writes " + String.join(", ", dedupe(writes))
                + " (copied to the device again before the next kernel that uses them)";
        return r + (r.isEmpty() || w.isEmpty() ? "" : "; ") + w;
    }

    private static List<String> dedupe(List<String> l) {
        return new ArrayList<>(new java.util.LinkedHashSet<>(l));
    }

    private static String plural(int n) {
        return n == 1 ? "" : "s";
    }

    /** The plan as a JSON object: class, method, descriptor, and its nests. */
    public static String json(MethodPlan p) {
        StringBuilder b = new StringBuilder();
        b.append("{\"class\":").append(str(p.owner().replace('/', '.')))
                .append(",\"method\":").append(str(p.name()))
                .append(",\"descriptor\":").append(str(p.descriptor()))
                .append(",\"source\":").append(str(p.source()))
                .append(",\"nests\":[");
        for (int i = 0; i < p.nests().size(); i++) {
            MethodPlan.Nest n = p.nests().get(i);
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"line\":").append(n.line())
                    .append(",\"offloaded\":").append(n.offloaded())
                    .append(",\"reasons\":").append(array(n.reasons()))
                    .append(",\"kernel\":").append(n.kernel() == null ? "null" : str(n.kernel()))
                    .append(",\"mapping\":").append(n.mapping() == null ? "null" : str(n.mapping()));
            if (n.offloaded()) {
                MethodPlan.Site s = p.sites().get(n.site());
                List<String> reductions = new ArrayList<>();
                for (String note : n.notes()) {
                    if (note.contains("each thread accumulates privately")) {
                        reductions.add(note.substring(0, note.indexOf(':')).trim());
                    }
                }
                b.append(",\"reductions\":").append(array(reductions))
                        .append(",\"liveOuts\":").append(array(s.liveOuts().stream().map(MethodPlan.Local::name).toList()))
                        .append(",\"notes\":").append(array(n.notes()))
                        .append(",\"after\":").append(str(effects(s.after())));
            }
            b.append('}');
        }
        b.append("]}");
        return b.toString();
    }

    static String array(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(str(items.get(i)));
        }
        return b.append(']').toString();
    }

    static String str(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
