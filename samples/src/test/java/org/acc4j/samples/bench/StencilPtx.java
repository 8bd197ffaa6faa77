package org.acc4j.samples.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.samples.Gaussblur;
import org.acc4j.samples.Jacobi;

/**
 * Writes the kernels the compiler emits for {@code Gaussblur.blur} and {@code Jacobi.sweep} (the variant launched when
 * the bounds proofs hold) under several marching settings, for {@code scripts/stencil-kernels.py} to time beside
 * hand-written CUDA: one {@code NAME.ptx} per form and a line per form in {@code forms.txt}: the name, the entry, the
 * kernel's parameter kind ({@code blur} or {@code jacobi}), the block, and per grid axis the level it covers, its
 * threads per block and the step of the level's loop ({@code -} for an unused axis).
 *
 * <p>Run: {@code java -cp ... org.acc4j.samples.bench.StencilPtx DIR [NAME=SETTING ...]}; a setting is a value of
 * {@code acc4j.march} ({@code default} for none). Without settings: the defaults, and marching off.
 */
public final class StencilPtx {
    private StencilPtx() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        List<String> settings = new ArrayList<>(List.of(args).subList(1, args.length));
        if (settings.isEmpty()) {
            settings.addAll(List.of("default=default", "off=off"));
        }
        StringBuilder forms = new StringBuilder();
        for (String s : settings) {
            String[] kv = s.split("=", 2);
            if (kv[1].equals("default")) {
                System.clearProperty("acc4j.march");
            } else {
                System.setProperty("acc4j.march", kv[1]);
            }
            forms.append(dump(dir, "ours-blur-" + kv[0], Gaussblur.class, "blur", "([D[D[DII)V", "blur"));
            forms.append(dump(dir, "ours-jacobi-" + kv[0], Jacobi.class, "sweep", "([D[DII)V", "jacobi"));
        }
        System.clearProperty("acc4j.march");
        Files.writeString(dir.resolve("forms.txt"), forms.toString());
        System.out.print(forms);
    }

    private static String dump(Path dir, String name, Class<?> owner, String method, String descriptor, String kind)
            throws IOException {
        byte[] classFile;
        try (InputStream in = owner.getResourceAsStream(owner.getSimpleName() + ".class")) {
            classFile = in.readAllBytes();
        }
        Compiler.Result compiled = Compiler.compile(classFile, method, descriptor, 90);
        if (!(compiled instanceof Compiler.Offload o)) {
            throw new IllegalStateException(owner.getSimpleName() + "." + method + " does not offload: " + compiled);
        }
        KernelPlan plan = o.method().kernels().get(0);
        KernelPlan.Unchecked u = plan.unchecked();
        Files.writeString(dir.resolve(name + ".ptx"), u.ptx());
        Mapping mapping = plan.launchMapping(true);
        StringBuilder line = new StringBuilder(name + " " + u.entry() + " " + kind + " " + mapping.block()[0] + ","
                + mapping.block()[1] + "," + mapping.block()[2]);
        for (Mapping.GridDim g : mapping.grid()) {
            if (g instanceof Mapping.FromTrip t) {
                long step = mapping.levels().get(t.level()).loops().get(0).step();
                line.append(" ").append(t.level()).append(":").append(t.perBlock()).append(":").append(step);
            } else {
                line.append(" -");
            }
        }
        return line.append("\n").toString();
    }
}
