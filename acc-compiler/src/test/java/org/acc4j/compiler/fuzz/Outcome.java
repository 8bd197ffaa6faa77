package org.acc4j.compiler.fuzz;

/** What happened to one nest: where it ran and, for a failure, what went wrong. */
public record Outcome(Kind kind, String detail) {
    public enum Kind {
        /** Ran on the device side and matched plain Java, element for element. */
        OFFLOADED,
        /** Ran on the device side and threw the exception plain Java threw. */
        THREW,
        /** The compiler refused it, with a diagnostic naming the method and a construct. */
        HOST,
        /** Compiled, but the disjointness check before the launch sent the call to the host. */
        HOST_AT_LAUNCH,
        /** A wrong value, a missing or wrong exception, a race, a crash or a missing diagnostic. */
        FAILED
    }

    public static Outcome failed(String why) {
        return new Outcome(Kind.FAILED, why);
    }

    public boolean failed() {
        return kind == Kind.FAILED;
    }

    /** The diagnostic with numbers and names folded, to count diagnostics by kind. */
    public String group() {
        if (kind != Kind.HOST && kind != Kind.HOST_AT_LAUNCH) {
            return kind.name();
        }
        String d = detail.replaceAll("\\b[a-z]\\w*\\d+\\b", "x").replaceAll("-?\\d+", "N");
        int colon = d.indexOf(':');
        return kind.name() + ": " + (colon > 0 && colon < d.length() - 1 ? d.substring(0, colon) : d);
    }
}
