/**
 * JMH benchmarks of the shipped sample kernels ({@code org.acc4j.samples}), one class per kernel family, each in
 * five modes: {@code serial} (the sample's plain-Java reference), {@code streams} (the same loop nest over a
 * parallel stream, {@link org.acc4j.jmh.Streams}), {@code multicore} (acc4j's multicore target on
 * {@code ACC_NUM_CORES} threads, every core when unset, {@link org.acc4j.jmh.MulticoreState}), {@code gpuKernel}
 * (acc4j with the data resident, every
 * {@code variant}) and {@code gpuTotal} (acc4j copying in and out each call). Every mode's setup checks its
 * result against plain Java before timing; the GPU modes also prove the kernel ran on the device
 * ({@link org.acc4j.jmh.GpuState}). Jacobi, DGEMM and transpose also have their {@code double[][]} form
 * ({@code serial2d}, {@code gpuKernel2d}, {@code gpuTotal2d}; {@link org.acc4j.jmh.Sample#rows}).
 *
 * <p>Run on the GPU machine with {@code scripts/bench-run.sh}; {@code bench-report} turns the results into
 * {@code docs/benchmarks.md}.
 *
 * <p><b>Adding a benchmark</b> is one class shaped like {@link org.acc4j.jmh.JacobiBench}: five nested states
 * ({@code size} and {@code variant} parameters) and five {@code @Benchmark} methods. The nested states are a few
 * lines each, only their {@code @Param} values: JMH takes a parameter's values from the annotation on the state's
 * own field and instantiates only the concrete state classes a benchmark method names, so each class declares its
 * own; what they do lives once in the base states. {@link org.acc4j.jmh.SpmvBench}
 * (a CSR sparse matrix-vector product) is a family of its own. A family outside the
 * catalogue declares its own {@link org.acc4j.jmh.Sample}, as {@link org.acc4j.jmh.DotBench} does (the kernel returns
 * its sum, compared within a relative tolerance since the GPU sums in another order; its streams mode sums in fixed
 * chunks and is compared bit for bit with the same chunked sum on one thread).
 */
package org.acc4j.jmh;
