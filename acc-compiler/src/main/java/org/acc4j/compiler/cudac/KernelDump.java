package org.acc4j.compiler.cudac;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.MethodBody;

/**
 * The readable form of a compiled method's kernels, written to a directory the user names: for each kernel
 * {@code <kernel>.ptx}, the PTX that is loaded with the Java source text added under its {@code // File.java:N}
 * comments (when the source file is found on the source path), and {@code <kernel>.cu}, its CUDA C rendering
 * ({@link CudaCRenderer}).
 */
public final class KernelDump {
    private KernelDump() {
    }

    /** The directories of a source path such as {@code src/main/java:other/src} (the platform's separator); empty for null. */
    public static List<Path> sourcePath(String spec) {
        List<Path> out = new ArrayList<>();
        if (spec != null) {
            for (String part : spec.split(Pattern.quote(File.pathSeparator))) {
                if (!part.isBlank()) {
                    out.add(Path.of(part.trim()));
                }
            }
        }
        return out;
    }

    /**
     * The source of the class {@code owner} (an internal name, {@code org/acc4j/samples/Jacobi}) whose SourceFile
     * attribute is {@code sourceFile}: the first {@code root/org/acc4j/samples/Jacobi.java} that exists, or
     * {@link SourceText#NONE}.
     */
    public static SourceText find(List<Path> roots, String owner, String sourceFile) {
        if (sourceFile == null) {
            return SourceText.NONE;
        }
        int slash = owner.lastIndexOf('/');
        String dir = slash < 0 ? "" : owner.substring(0, slash);
        for (Path root : roots) {
            Path file = dir.isEmpty() ? root.resolve(sourceFile) : root.resolve(dir).resolve(sourceFile);
            if (Files.isRegularFile(file)) {
                try {
                    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                    return line -> line >= 1 && line <= lines.size() ? lines.get(line - 1) : null;
                } catch (IOException | java.io.UncheckedIOException e) {
                    return SourceText.NONE;
                }
            }
        }
        return SourceText.NONE;
    }

    /**
     * {@code ptx} with the text of each Java source line put above the emitter's first {@code // File.java:N: ...}
     * comment of that line: {@code // File.java:N  the line as written}. Unchanged when the text is unknown.
     */
    public static String annotate(String ptx, String sourceFile, SourceText source) {
        if (sourceFile == null || source == SourceText.NONE) {
            return ptx;
        }
        Pattern marker = Pattern.compile("^(\\s*)// " + Pattern.quote(sourceFile) + ":(\\d+): ");
        StringBuilder out = new StringBuilder(ptx.length() + ptx.length() / 4);
        int last = -1;
        for (String line : ptx.split("\n", -1)) {
            Matcher m = marker.matcher(line);
            if (m.find()) {
                int n = Integer.parseInt(m.group(2));
                String text = source.line(n);
                if (n != last && text != null && !text.isBlank()) {
                    out.append(m.group(1)).append("// ").append(sourceFile).append(':').append(n).append("  ")
                            .append(text.strip()).append('\n');
                }
                last = n;
            }
            out.append(line).append('\n');
        }
        out.setLength(out.length() - 1);
        return out.toString();
    }

    /**
     * Writes {@code <kernel>.ptx} and {@code <kernel>.cu} for every kernel of {@code m} into {@code dir}, and a tiled
     * kernel's {@code <kernel>_tiled.ptx}; returns the files.
     */
    public static List<Path> write(Path dir, CompiledMethod m, List<Path> sourcePath) throws IOException {
        MethodBody body = m.body();
        SourceText source = find(sourcePath, body.owner(), body.sourceFile());
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (KernelPlan k : m.kernels()) {
            Path ptx = dir.resolve(k.entry() + ".ptx");
            Files.writeString(ptx, annotate(k.ptx(), body.sourceFile(), source), StandardCharsets.UTF_8);
            written.add(ptx);
            Path cu = dir.resolve(k.entry() + ".cu");
            Files.writeString(cu, CudaCRenderer.render(body, k, source).source(), StandardCharsets.UTF_8);
            written.add(cu);
            if (k.unchecked() != null && k.unchecked().tiled() != null) {
                // the tiled kernel launched when the bounds proofs hold (PTX only: it has no IR to render)
                Path tiled = dir.resolve(k.unchecked().entry() + ".ptx");
                Files.writeString(tiled, k.unchecked().ptx(), StandardCharsets.UTF_8);
                written.add(tiled);
            }
            if (k.unchecked() != null && k.unchecked().marched() != null) {
                // the marched stencil launched when the bounds proofs hold
                Path marched = dir.resolve(k.unchecked().entry() + ".ptx");
                Files.writeString(marched, annotate(k.unchecked().ptx(), body.sourceFile(), source),
                        StandardCharsets.UTF_8);
                written.add(marched);
            }
        }
        return written;
    }
}
