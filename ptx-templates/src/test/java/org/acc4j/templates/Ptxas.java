package org.acc4j.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code ptxas -arch=sm_90} on a PTX module in the tests, where ptxas is on the PATH. */
public final class Ptxas {
    /** The reason a test gives when it skips for want of ptxas. */
    public static final String ABSENT = "ptxas is not on the PATH: PTX assembly check skipped";

    private Ptxas() {
    }

    public static boolean onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "ptxas"))) {
                return true;
            }
        }
        return false;
    }

    /** Assembles {@code ptx} for sm_90 and fails, with ptxas's log, if ptxas rejects it; returns the log. */
    public static String assemble(String name, String ptx, String... options) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("acc4j-ptx");
        try {
            Path src = dir.resolve(name + ".ptx");
            Files.writeString(src, ptx, StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(List.of("ptxas", "-arch=sm_90"));
            cmd.addAll(List.of(options));
            cmd.addAll(List.of(src.toString(), "-o", dir.resolve(name + ".cubin").toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("ptxas timed out on " + name);
            }
            assertEquals(0, p.exitValue(), "ptxas -arch=sm_90 rejected " + name + ":\n" + log);
            return log;
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
