package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Matrix copy and transpose of a rows × cols matrix, in the OpenACC variants that Chatain compares
 * ("Hybrid Parallel Programming - Evaluation of OpenACC", UFRGS 2012, section 3.1.2), with the copy as the
 * bandwidth a transpose can hope for:
 * <ul>
 *   <li>copy {@code 1d_naive}: one loop over all elements, no {@code @Loop} (listing 3.1);
 *   <li>copy {@code 1d_par}: the same loop with fewer threads than elements, gang(4096) vector(256), so that each
 *       thread copies several;
 *   <li>copy {@code naive}: two loops, no {@code @Loop};
 *   <li>copy {@code par}: two loops with the listing's tuning (listing 3.2): gang(n/32) vector(32) on the rows,
 *       gang(n/32) vector(8) on the columns, so that each thread copies 4 elements;
 *   <li>copy {@code inner}: columns gang vector(32), 8 row offsets vector(8), and a sequential loop over every
 *       8th row in each thread (listing 3.3);
 *   <li>transpose {@code naive}: two loops, no {@code @Loop} (listing 3.4): the inner loop walks a row of the
 *       input, so reads are coalesced and writes strided, unless the compiler chooses otherwise;
 *   <li>transpose {@code reads_coalesced} and {@code writes_coalesced}: the same with an explicit mapping, gang |
 *       gang vector(128), and the vector loop over the input's row or over the output's row;
 *   <li>transpose {@code par} and {@code inner}: the tunings of copy {@code par} and {@code inner} (listing 3.5).
 * </ul>
 * The loops keep the order and the clauses of the listings (a gang count of n/32 becomes the constant
 * {@link #TILES}, for n = 8192: annotation values are constants); the listings leave the gang of the outer loop
 * of listing 3.3 to the compiler, here {@code gang = Loop.AUTO}. The copy and transpose kernels through shared
 * memory that the thesis compares in CUDA (coalesced, bank-conflict free: 32 × 32 tiles staged in shared memory)
 * are not expressible: a kernel body has no shared memory or barrier, only loops over global arrays.
 *
 * <p>Each kernel comes over flat row-major arrays ({@code in[r*cols + c]}) and, but for the single-loop copies,
 * over rows ({@code in[r][c]}, the {@code 2d} methods).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Transpose [n [reps]]}
 */
public final class Transpose {
    static final int TILE_DIM = 32;
    static final int BLOCK_ROWS = 8;
    /** The listings' gang count n / {@link #TILE_DIM} for n = 8192. */
    static final int TILES = 256;

    static final String[] FLAT = {"copy 1d_naive", "copy 1d_par", "copy naive", "copy par", "copy inner",
        "transpose naive", "transpose reads_coalesced", "transpose writes_coalesced", "transpose par",
        "transpose inner"};
    static final String[] ROWS = {"copy naive", "copy par", "copy inner", "transpose naive",
        "transpose reads_coalesced", "transpose writes_coalesced", "transpose par", "transpose inner"};

    private Transpose() {
    }

    @Kernels
    static void copy1dNaive(double[] in, double[] out, int rows, int cols) {
        for (int i = 0; i < rows * cols; i++) {
            out[i] = in[i];
        }
    }

    @Kernels
    static void copy1dPar(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = 4096, vector = 256) int i = 0; i < rows * cols; i++) {
            out[i] = in[i];
        }
    }

    @Kernels
    static void copyNaive(double[] in, double[] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void copyPar(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = TILES, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(gang = TILES, vector = BLOCK_ROWS) int c = 0; c < cols; c++) {
                out[r * cols + c] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void copyInner(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO, vector = TILE_DIM) int c = 0; c < cols; c++) {
            for (@Loop(vector = BLOCK_ROWS) int i = 0; i < BLOCK_ROWS; i++) {
                for (int r = i; r < rows; r += BLOCK_ROWS) {
                    out[r * cols + c] = in[r * cols + c];
                }
            }
        }
    }

    /** The copy, never offloaded: the reference of every flat copy. */
    static void copyPlain(double[] in, double[] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void transposeNaive(double[] in, double[] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void transposeReadsCoalesced(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO) int r = 0; r < rows; r++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void transposeWritesCoalesced(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO) int c = 0; c < cols; c++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int r = 0; r < rows; r++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void transposePar(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = TILES, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(gang = TILES, vector = BLOCK_ROWS) int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void transposeInner(double[] in, double[] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(vector = BLOCK_ROWS) int i = 0; i < BLOCK_ROWS; i++) {
                for (int c = i; c < cols; c += BLOCK_ROWS) {
                    out[c * rows + r] = in[r * cols + c];
                }
            }
        }
    }

    /** The transpose, never offloaded: the reference of every flat transpose. */
    static void transposePlain(double[] in, double[] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
    }

    @Kernels
    static void copy2dNaive(double[][] in, double[][] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r][c] = in[r][c];
            }
        }
    }

    @Kernels
    static void copy2dPar(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = TILES, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(gang = TILES, vector = BLOCK_ROWS) int c = 0; c < cols; c++) {
                out[r][c] = in[r][c];
            }
        }
    }

    @Kernels
    static void copy2dInner(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO, vector = TILE_DIM) int c = 0; c < cols; c++) {
            for (@Loop(vector = BLOCK_ROWS) int i = 0; i < BLOCK_ROWS; i++) {
                for (int r = i; r < rows; r += BLOCK_ROWS) {
                    out[r][c] = in[r][c];
                }
            }
        }
    }

    /** The copy over rows, never offloaded: the reference of every copy over rows. */
    static void copy2dPlain(double[][] in, double[][] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r][c] = in[r][c];
            }
        }
    }

    @Kernels
    static void transpose2dNaive(double[][] in, double[][] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c][r] = in[r][c];
            }
        }
    }

    @Kernels
    static void transpose2dReadsCoalesced(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO) int r = 0; r < rows; r++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int c = 0; c < cols; c++) {
                out[c][r] = in[r][c];
            }
        }
    }

    @Kernels
    static void transpose2dWritesCoalesced(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO) int c = 0; c < cols; c++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int r = 0; r < rows; r++) {
                out[c][r] = in[r][c];
            }
        }
    }

    @Kernels
    static void transpose2dPar(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = TILES, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(gang = TILES, vector = BLOCK_ROWS) int c = 0; c < cols; c++) {
                out[c][r] = in[r][c];
            }
        }
    }

    @Kernels
    static void transpose2dInner(double[][] in, double[][] out, int rows, int cols) {
        for (@Loop(gang = Loop.AUTO, vector = TILE_DIM) int r = 0; r < rows; r++) {
            for (@Loop(vector = BLOCK_ROWS) int i = 0; i < BLOCK_ROWS; i++) {
                for (int c = i; c < cols; c += BLOCK_ROWS) {
                    out[c][r] = in[r][c];
                }
            }
        }
    }

    /** The transpose over rows, never offloaded: the reference of every transpose over rows. */
    static void transpose2dPlain(double[][] in, double[][] out, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c][r] = in[r][c];
            }
        }
    }

    /** Variant {@code v} of {@link #FLAT}. */
    static void flatVariant(int v, double[] in, double[] out, int rows, int cols) {
        switch (v) {
            case 0 -> copy1dNaive(in, out, rows, cols);
            case 1 -> copy1dPar(in, out, rows, cols);
            case 2 -> copyNaive(in, out, rows, cols);
            case 3 -> copyPar(in, out, rows, cols);
            case 4 -> copyInner(in, out, rows, cols);
            case 5 -> transposeNaive(in, out, rows, cols);
            case 6 -> transposeReadsCoalesced(in, out, rows, cols);
            case 7 -> transposeWritesCoalesced(in, out, rows, cols);
            case 8 -> transposePar(in, out, rows, cols);
            case 9 -> transposeInner(in, out, rows, cols);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Variant {@code v} of {@link #ROWS}. */
    static void rowsVariant(int v, double[][] in, double[][] out, int rows, int cols) {
        switch (v) {
            case 0 -> copy2dNaive(in, out, rows, cols);
            case 1 -> copy2dPar(in, out, rows, cols);
            case 2 -> copy2dInner(in, out, rows, cols);
            case 3 -> transpose2dNaive(in, out, rows, cols);
            case 4 -> transpose2dReadsCoalesced(in, out, rows, cols);
            case 5 -> transpose2dWritesCoalesced(in, out, rows, cols);
            case 6 -> transpose2dPar(in, out, rows, cols);
            case 7 -> transpose2dInner(in, out, rows, cols);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Median milliseconds of variant {@code v} on data already on the device (out is not copied back). */
    @Data(copyin = "in", create = "out")
    static double timeResident(int v, double[] in, double[] out, int rows, int cols, int reps) {
        return Check.medianMillis(reps, () -> {
            flatVariant(v, in, out, rows, cols);
            Acc.waitAll();
        });
    }

    @Data(copyin = "in", create = "out")
    static double timeResident2d(int v, double[][] in, double[][] out, int rows, int cols, int reps) {
        return Check.medianMillis(reps, () -> {
            rowsVariant(v, in, out, rows, cols);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 8192 : 2048);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        Random random = new Random(3112);
        double[] in = Check.random(random, n * n);
        double[][] in2 = Check.rows(in, n, n);
        Check.header("matrix copy and transpose", n + " x " + n);
        double[] copied = new double[n * n];
        copyPlain(in, copied, n, n);
        double[] transposed = new double[n * n];
        transposePlain(in, transposed, n, n);
        // one read and one write of each element
        double bytes = 16.0 * n * n;
        boolean ok = true;
        for (int v = 0; v < FLAT.length; v++) {
            double[] out = new double[n * n];
            flatVariant(v, in, out, n, n);
            ok &= Check.same("flat " + FLAT[v], FLAT[v].startsWith("copy") ? copied : transposed, out);
            Check.row("flat " + FLAT[v], timeResident(v, in, out, n, n, reps), bytes);
        }
        for (int v = 0; v < ROWS.length; v++) {
            double[][] out = new double[n][n];
            rowsVariant(v, in2, out, n, n);
            ok &= Check.same("rows " + ROWS[v], ROWS[v].startsWith("copy") ? copied : transposed, out);
            Check.row("rows " + ROWS[v], timeResident2d(v, in2, out, n, n, reps), bytes);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("copy and transpose, " + (FLAT.length + ROWS.length) + " variants", ok, (long) n * n);
    }
}
