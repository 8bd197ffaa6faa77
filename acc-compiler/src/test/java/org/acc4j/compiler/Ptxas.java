package org.acc4j.compiler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs {@code ptxas -arch=sm_90} on generated PTX, when ptxas is on the PATH. */
public final class Ptxas {
    private Ptxas() {
    }

    /** The ptxas executable on the PATH, or null. */
    public static Path find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, "ptxas");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Assembles {@code ptx}; returns null on success, else ptxas's output. */
    public static String assemble(Path ptxas, String name, String ptx) throws IOException, InterruptedException {
        return run(ptxas, name, ptx, false);
    }

    /**
     * Assembles {@code ptx} with {@code -v}; returns null when it assembles and no function spills registers to
     * local memory, else ptxas's output.
     */
    public static String assembleWithoutSpills(Path ptxas, String name, String ptx)
            throws IOException, InterruptedException {
        String out = run(ptxas, name, ptx, true);
        if (out.startsWith("ok\n")) {
            boolean spills = out.lines().anyMatch(l -> l.matches(".*\\b[1-9][0-9]* bytes spill (stores|loads).*"));
            return spills ? out.substring(3) : null;
        }
        return out;
    }

    /** The registers a thread of {@code ptx}'s kernel uses under {@code ptxas -v}, or -1 when it does not assemble. */
    public static int registers(Path ptxas, String name, String ptx) throws IOException, InterruptedException {
        String out = run(ptxas, name, ptx, true);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Used (\\d+) registers").matcher(out);
        return out.startsWith("ok\n") && m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static String run(Path ptxas, String name, String ptx, boolean verbose)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("acc4j-ptxas");
        Path in = dir.resolve(name + ".ptx");
        Files.writeString(in, ptx, StandardCharsets.UTF_8);
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(ptxas.toString(), "-arch=sm_90"));
        if (verbose) {
            cmd.add("-v");
        }
        cmd.addAll(java.util.List.of("-o", dir.resolve(name + ".cubin").toString(), in.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "ptxas timed out";
        }
        if (verbose) {
            return p.exitValue() == 0 ? "ok\n" + out : out;
        }
        return p.exitValue() == 0 ? null : out;
    }
}
