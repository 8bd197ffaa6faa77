/**
 * Numerics samples written the way published Java benchmarks are (NAS Parallel Benchmarks Java, SciMark, Java
 * Grande), with nothing for acc4j but {@code @Kernels} on the methods that hold the loops: no {@code @Loop}, no
 * {@code @Data}, no restructuring. The sequential code around the loop nests (time and iteration loops, timers,
 * field writes, allocations, early exits, helper calls, reference swaps) stays as such code is usually written.
 *
 * <ul>
 *   <li>{@link org.acc4j.samples.numerics.CG}: NPB-CG's inverse power iteration with conjugate gradients on a CSR
 *       matrix held in {@link org.acc4j.samples.numerics.CGBase}'s fields, timed with
 *       {@link org.acc4j.samples.numerics.Timer};</li>
 *   <li>{@link org.acc4j.samples.numerics.MG}: NPB-MG's residual and smoother with line temporaries and the
 *       periodic halo exchange {@code comm3};</li>
 *   <li>{@link org.acc4j.samples.numerics.Jacobi2D} and {@link org.acc4j.samples.numerics.Heat2D}: iterations
 *       with a convergence test and grids swapped by reference;</li>
 *   <li>{@link org.acc4j.samples.numerics.SparseCompRow}, {@link org.acc4j.samples.numerics.LU} and
 *       {@link org.acc4j.samples.numerics.FFT}: SciMark's kernels;</li>
 *   <li>{@link org.acc4j.samples.numerics.Mandelbrot} and {@link org.acc4j.samples.numerics.NBody};</li>
 *   <li>{@link org.acc4j.samples.numerics.Dense}: a matrix class as linear-algebra libraries write one, its methods
 *       reading another matrix's elements through its field ({@code b.a[k][j]}), and static routines reading their
 *       arguments' fields ({@code a.data}, {@code a.cols});</li>
 *   <li>{@link org.acc4j.samples.numerics.FourierSeries}: Fourier coefficients by the trapezoid rule through
 *       overridable instance methods, as the classic Java benchmark series computes them;</li>
 *   <li>{@link org.acc4j.samples.numerics.Linpack}: LU factorisation column by column as the LINPACK benchmark's
 *       Java versions write it ({@code colK = a[k]} before the loop over the other columns, BLAS-style helpers);</li>
 *   <li>{@link org.acc4j.samples.numerics.Julia}: a Julia set through a complex-number class whose methods make new
 *       numbers at every step.</li>
 * </ul>
 *
 * <p>Each {@code main} takes its sizes as arguments (small defaults), draws its inputs from a seeded
 * {@link java.util.Random}, and prints a {@code checksum:} line over the raw bits of every result
 * ({@link org.acc4j.samples.numerics.Checksum}), {@code result:} lines, a summary with times, and a verification of
 * a known property of the result, exiting with 1 when it fails ({@link org.acc4j.samples.numerics.Report}). The
 * resource {@code numerics-nests.txt} lists every loop of every {@code @Kernels} method here with the decision
 * intended for it (parallel, sequential or host).
 */
package org.acc4j.samples.numerics;
