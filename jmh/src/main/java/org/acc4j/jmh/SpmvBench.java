package org.acc4j.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CSR sparse matrix-vector product ({@link Csr}), n rows of 16 non-zeros.
 * Modes: {@code serial} (plain Java), {@code streams} (parallel streams), {@code multicore} (acc4j's multicore target,
 * see {@link MulticoreState}), {@code gpuKernel} (acc4j, data resident) and {@code gpuTotal} (acc4j, copying in and
 * out each call). See {@link GpuState} for the checks made before timing.
 *
 * <p>The nested states hold only what differs per benchmark, their {@code @Param} values; setup, checks and the timed
 * call are the shared bases' ({@link SerialState}, {@link StreamsState}, {@link MulticoreState}, {@link GpuState}).
 * They cannot move into the bases: JMH reads a parameter's values from the annotation on the state's field, and
 * instantiates only concrete state classes named by a {@code @Benchmark} method's signature.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 200, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 300, timeUnit = TimeUnit.MILLISECONDS)
public class SpmvBench {
    static final Sample SAMPLE = new Sample("spmv", Csr::arguments,
            a -> Csr.spmvStreams((int[]) a[0], (int[]) a[1], (double[]) a[2], (double[]) a[3], (double[]) a[4],
                    (int) a[5]),
            Kernel.of(Csr.class, "spmvPlain", List.of(4)), v -> Kernel.of(Csr.class, "spmv", List.of(4)), 0);

    @State(Scope.Benchmark)
    public static class Serial extends SerialState {
        @Param({"2097152"})
        public String size;

        public Serial() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class Parallel extends StreamsState {
        @Param({"2097152"})
        public String size;

        public Parallel() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class OnCores extends MulticoreState {
        @Param({"2097152"})
        public String size;
        @Param({"default"})
        public String variant;

        public OnCores() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class Resident extends GpuState {
        @Param({"2097152"})
        public String size;
        @Param({"default"})
        public String variant;

        public Resident() {
            super(SAMPLE, Transfers.RESIDENT);
        }
    }

    @State(Scope.Benchmark)
    public static class EachCall extends GpuState {
        @Param({"2097152"})
        public String size;
        @Param({"default"})
        public String variant;

        public EachCall() {
            super(SAMPLE, Transfers.EACH_CALL);
        }
    }

    @Benchmark
    @Warmup(iterations = 1)
    @Measurement(iterations = 2)
    public Object serial(Serial s) {
        return s.run();
    }

    @Benchmark
    public Object streams(Parallel s) {
        return s.run();
    }

    @Benchmark
    public Object multicore(OnCores s) {
        return s.run();
    }

    @Benchmark
    public Object gpuKernel(Resident s) {
        return s.run();
    }

    @Benchmark
    public Object gpuTotal(EachCall s) {
        return s.run();
    }
}
