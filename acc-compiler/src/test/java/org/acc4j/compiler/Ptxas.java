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
        Path dir = Files.createTempDirectory("acc4j-ptxas");
        Path in = dir.resolve(name + ".ptx");
        Files.writeString(in, ptx, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", "-o", dir.resolve(name + ".cubin").toString(),
                in.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "ptxas timed out";
        }
        return p.exitValue() == 0 ? null : out;
    }
}
