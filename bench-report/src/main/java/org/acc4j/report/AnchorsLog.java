package org.acc4j.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peers' output ({@code shared/anchors/run.sh}): GCC OpenACC lines such as
 * {@code gcc-openacc jacobi n=8192: 0.666 ms, 1611.2 GB/s (2 x 8 x n^2 bytes)}, the GPU line
 * ({@code NVIDIA H100 80GB HBM3 SMs 132}) and the Python lines such as
 * {@code cuda jacobi 8192^2 (32x8)      0.402 ms     2668.1 GB/s}. Rates are kept in GB/s or TFLOP/s.
 *
 * @param gpu   the GPU line, or empty
 * @param peers every measurement, in order
 */
public record AnchorsLog(String gpu, List<Peer> peers) {

    /**
     * One peer measurement.
     *
     * @param name  the text before the time, e.g. {@code cuda jacobi 8192^2 (32x8)}, {@code gcc-openacc dgemm n=2048}
     * @param ms    milliseconds per call
     * @param rate  the figure, in {@code unit}
     * @param unit  {@code GB/s} or {@code TFLOP/s}
     */
    public record Peer(String name, double ms, double rate, String unit) {
    }

    private static final Pattern GCC = Pattern.compile(
            "^(gcc-openacc \\S+ n=\\d+):\\s+([0-9.]+) ms,\\s+([0-9.]+) (GB/s|GFLOP/s|TFLOP/s).*$");
    private static final Pattern PY = Pattern.compile("^(\\S.*?)\\s+([0-9.]+) ms\\s+([0-9.]+) (GB/s|GFLOP/s|TFLOP/s)\\s*$");
    private static final Pattern GPU = Pattern.compile("^(NVIDIA .*?)(?: SMs \\d+)?\\s*$");

    public static AnchorsLog parse(String text) {
        String gpu = "";
        List<Peer> peers = new ArrayList<>();
        for (String line : text.split("\\R")) {
            Matcher m = GCC.matcher(line);
            if (!m.matches()) {
                m = PY.matcher(line);
            }
            if (m.matches()) {
                double rate = Double.parseDouble(m.group(3));
                String unit = m.group(4);
                if (unit.equals("GFLOP/s")) {
                    rate /= 1e3;
                    unit = Work.TFLOPS;
                }
                peers.add(new Peer(m.group(1).trim(), Double.parseDouble(m.group(2)), rate, unit));
                continue;
            }
            Matcher g = GPU.matcher(line);
            if (gpu.isEmpty() && g.matches()) {
                gpu = g.group(1).trim();
            }
        }
        return new AnchorsLog(gpu, List.copyOf(peers));
    }

    /** The first peer whose name starts with {@code prefix}. */
    public Optional<Peer> find(String prefix) {
        return peers.stream().filter(p -> p.name().startsWith(prefix)).findFirst();
    }
}
