package org.acc4j.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The measurements of a run, looked up by sample, mode, size and variant. The lookups below see the main pass's
 * flat results only; {@link #rows} and {@link #tagged} reach the {@code double[][]} forms and the other passes.
 */
public final class Results {
    /** The report's order of samples. */
    public static final List<String> ORDER = List.of("vectoradd", "copy", "jacobi", "transpose", "gaussblur", "dgemm",
            "dot", "stencil", "laplacian", "wave13pt", "spmv");

    private final List<Measurement> all;
    private final List<Measurement> everything;

    public Results(List<Measurement> all) {
        this.everything = List.copyOf(all);
        this.all = everything.stream().filter(m -> m.form().equals(Measurement.FLAT) && m.tag().isEmpty()).toList();
    }

    /** The main pass's {@code double[][]} result of a sample's mode (any size: serial DGEMM's differs). */
    public List<Measurement> rows(String sample, String mode) {
        return everything.stream().filter(m -> m.sample().equals(sample) && m.mode().equals(mode)
                && m.form().equals(Measurement.ROWS) && m.tag().isEmpty()).toList();
    }

    /** Samples with a {@code double[][]} result, in {@link #ORDER}. */
    public List<String> rowSamples() {
        return ORDER.stream().filter(s -> everything.stream().anyMatch(m -> m.sample().equals(s)
                && m.form().equals(Measurement.ROWS))).toList();
    }

    /** A flat result of the pass tagged {@code tag}. */
    public Optional<Measurement> tagged(String tag, String sample, String mode, String size, String variant) {
        return everything.stream().filter(m -> m.tag().equals(tag) && m.form().equals(Measurement.FLAT)
                && m.sample().equals(sample) && m.mode().equals(mode) && m.size().equals(size)
                && m.variant().equals(variant)).findFirst();
    }

    /** The results of the pass tagged {@code tag}, in order of appearance. */
    public List<Measurement> tagged(String tag) {
        return everything.stream().filter(m -> m.tag().equals(tag)).toList();
    }

    /** The name of a sample in prose. */
    public static String title(String sample) {
        return switch (sample) {
            case "vectoradd" -> "vector add";
            case "dgemm" -> "DGEMM";
            case "gaussblur" -> "Gaussblur";
            case "jacobi" -> "Jacobi 2D";
            case "stencil" -> "3D stencil";
            case "laplacian" -> "Laplacian";
            case "wave13pt" -> "wave13pt";
            case "dot" -> "dot product";
            case "spmv" -> "CSR mat-vec";
            default -> sample;
        };
    }

    /** The variant without {@code @Loop}: what a user gets with no hints. */
    public static String defaultVariant(String sample) {
        return sample.equals("copy") || sample.equals("transpose") ? "naive" : "default";
    }

    /** Samples present, in {@link #ORDER} (unknown ones after). */
    public List<String> samples() {
        Set<String> s = new LinkedHashSet<>();
        ORDER.stream().filter(o -> all.stream().anyMatch(m -> m.sample().equals(o))).forEach(s::add);
        all.forEach(m -> s.add(m.sample()));
        return List.copyOf(s);
    }

    /** The sizes of a sample's GPU results, else of its host results, in order of appearance. */
    public List<String> sizes(String sample) {
        Set<String> gpu = new LinkedHashSet<>();
        Set<String> host = new LinkedHashSet<>();
        for (Measurement m : all) {
            if (m.sample().equals(sample)) {
                (m.gpu() ? gpu : host).add(m.size());
            }
        }
        return List.copyOf(gpu.isEmpty() ? host : gpu);
    }

    public Optional<Measurement> find(String sample, String mode, String size, String variant) {
        return all.stream().filter(m -> m.sample().equals(sample) && m.mode().equals(mode) && m.size().equals(size)
                && (variant == null || m.variant().equals(variant))).findFirst();
    }

    /** A host mode's result at {@code size}, else at the sample's only other size (DGEMM's serial n = 1024). */
    public Optional<Measurement> host(String sample, String mode, String size) {
        Optional<Measurement> same = find(sample, mode, size, null);
        if (same.isPresent()) {
            return same;
        }
        return all.stream().filter(m -> m.sample().equals(sample) && m.mode().equals(mode)).findFirst();
    }

    /** The kernel-only results of every variant, in order of appearance. */
    public List<Measurement> variants(String sample, String size) {
        List<Measurement> v = new ArrayList<>();
        for (Measurement m : all) {
            if (m.sample().equals(sample) && m.size().equals(size) && m.mode().equals(Measurement.KERNEL)) {
                v.add(m);
            }
        }
        return v;
    }

    /** The fastest kernel-only variant. */
    public Optional<Measurement> best(String sample, String size) {
        return variants(sample, size).stream().max(Comparator.comparingDouble(Measurement::rate));
    }

    public Optional<Measurement> defaultKernel(String sample, String size) {
        return find(sample, Measurement.KERNEL, size, defaultVariant(sample));
    }

    public boolean isEmpty() {
        return all.isEmpty();
    }
}
