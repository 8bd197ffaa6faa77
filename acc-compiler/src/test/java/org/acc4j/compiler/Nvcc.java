package org.acc4j.compiler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.acc4j.compiler.cudac.CudaCRenderer;

/** Runs {@code nvcc -ptx} on CUDA C renderings, when nvcc is on the PATH. */
public final class Nvcc {
    private Nvcc() {
    }

    /** The nvcc executable on the PATH, or null. */
    public static Path find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, "nvcc");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Compiles each {@code name -> CUDA C} to PTX with {@link CudaCRenderer#NVCC_OPTIONS}, in one nvcc run; returns
     * the PTX by name, or throws with nvcc's output.
     */
    public static Map<String, String> compile(Path nvcc, Map<String, String> units) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("acc4j-nvcc");
        List<String> command = new ArrayList<>(List.of(nvcc.toString()));
        command.addAll(List.of(CudaCRenderer.NVCC_OPTIONS.split(" ")));
        // every warning is an error, but "set but never used": a rendering keeps the region's dead assignments, as the PTX
        command.addAll(List.of("-ptx", "-Werror", "all-warnings", "-diag-suppress", "550", "-odir", dir.toString()));
        for (Map.Entry<String, String> u : units.entrySet()) {
            Path cu = dir.resolve(u.getKey() + ".cu");
            Files.writeString(cu, u.getValue(), StandardCharsets.UTF_8);
            command.add(cu.toString());
        }
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("nvcc timed out");
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("nvcc rejects the rendering (sources in " + dir + "):\n" + out);
        }
        Map<String, String> ptx = new java.util.LinkedHashMap<>();
        for (String name : units.keySet()) {
            ptx.put(name, Files.readString(dir.resolve(name + ".ptx"), StandardCharsets.UTF_8));
        }
        return ptx;
    }

    /**
     * Compiles every {@code name -> CUDA C} as one translation unit, each in its own namespace (nvcc's start-up
     * dominates the time of one small file); returns nvcc's PTX, which has one entry per unit, or throws with nvcc's
     * output.
     */
    public static String compileTogether(Path nvcc, Map<String, String> units) throws IOException, InterruptedException {
        StringBuilder all = new StringBuilder("#include <cuda_runtime.h>\n");
        int k = 0;
        for (Map.Entry<String, String> u : units.entrySet()) {
            all.append("\n// ---- ").append(u.getKey()).append("\nnamespace unit").append(k++).append(" {\n")
                    .append(u.getValue().replace("#include <cuda_runtime.h>\n", "")).append("}\n");
        }
        return compile(nvcc, Map.of("all_kernels", all.toString())).get("all_kernels");
    }
}
