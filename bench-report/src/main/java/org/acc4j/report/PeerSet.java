package org.acc4j.report;

import java.util.List;

/**
 * Which peer of {@code shared/anchors} each benchmark is held against, named by the start of the peer's line in
 * the anchors log. Same-kernel peers come first; the device copy (the memory-bandwidth ceiling) closes every list
 * of a memory-bound kernel. Ratios are acc4j's figure over the peer's, in the kernel's unit (GB/s or TFLOP/s).
 */
public final class PeerSet {
    /** One comparison: a label for tables and charts and the anchors line it reads. */
    public record Ref(String label, String line) {
    }

    public static final Ref COPY = new Ref("device copy (CuPy)", "copy cupy f64");

    private PeerSet() {
    }

    /** The peers of {@code sample}, most specific first. */
    public static List<Ref> of(String sample) {
        return switch (sample) {
            case "jacobi" -> List.of(new Ref("hand CUDA (32×8)", "cuda jacobi"),
                    new Ref("Numba (coalesced)", "numba jacobi 8192^2 coalesced"),
                    new Ref("GCC OpenACC", "gcc-openacc jacobi"), COPY);
            case "transpose" -> List.of(new Ref("hand CUDA tiled (32×33)", "cuda transpose tiled"),
                    new Ref("hand CUDA naive", "cuda transpose naive"),
                    new Ref("GCC OpenACC", "gcc-openacc transpose"), COPY);
            case "dgemm" -> List.of(new Ref("cuBLAS", "cublas dgemm 4096"),
                    new Ref("hand CUDA tiled", "cuda dgemm smem-tiled 4096"),
                    new Ref("hand CUDA naive", "cuda dgemm naive 4096"),
                    new Ref("Numba naive", "numba dgemm naive 4096"),
                    new Ref("GCC OpenACC (n = 2048)", "gcc-openacc dgemm"));
            case "dot" -> List.of(new Ref("CuPy", "cupy dot"), new Ref("GCC OpenACC", "gcc-openacc dot"), COPY);
            case "copy", "vectoradd", "gaussblur", "stencil", "laplacian", "wave13pt" -> List.of(COPY);
            default -> List.of();
        };
    }
}
