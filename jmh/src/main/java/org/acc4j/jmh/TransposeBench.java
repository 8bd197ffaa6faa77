package org.acc4j.jmh;

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
 * Matrix transpose, n × n ({@code Transpose.transpose*}; the variants are Chatain's tunings).
 * Modes: {@code serial} (plain Java), {@code streams} (parallel streams), {@code multicore} (acc4j's multicore target, see
 * {@link MulticoreState}), {@code gpuKernel} (acc4j, data
 * resident; every {@code variant}) and {@code gpuTotal} (acc4j, copying in and out each call). See
 * {@link GpuState} for the checks made before timing. The {@code double[][]} form runs as {@code serial2d},
 * {@code gpuKernel2d} and {@code gpuTotal2d} (its default variant) at the same sizes as the flat form.
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
public class TransposeBench {
    static final Sample SAMPLE = Sample.of("transpose");

    @State(Scope.Benchmark)
    public static class Serial extends SerialState {
        @Param({"8192"})
        public String size;

        public Serial() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class Parallel extends StreamsState {
        @Param({"8192"})
        public String size;

        public Parallel() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class OnCores extends MulticoreState {
        @Param({"8192"})
        public String size;
        @Param({"naive"})
        public String variant;

        public OnCores() {
            super(SAMPLE);
        }
    }

    @State(Scope.Benchmark)
    public static class Resident extends GpuState {
        @Param({"8192"})
        public String size;
        @Param({"naive", "reads_coalesced", "writes_coalesced", "par", "inner"})
        public String variant;

        public Resident() {
            super(SAMPLE, Transfers.RESIDENT);
        }
    }

    @State(Scope.Benchmark)
    public static class EachCall extends GpuState {
        @Param({"8192"})
        public String size;
        @Param({"naive"})
        public String variant;

        public EachCall() {
            super(SAMPLE, Transfers.EACH_CALL);
        }
    }

    /** The {@code double[][]} form ({@code transpose.2d.*}): the same values, row by row. */
    static final Sample ROWS = Sample.rows("transpose");

    @State(Scope.Benchmark)
    public static class Serial2d extends SerialState {
        @Param({"8192"})
        public String size;

        public Serial2d() {
            super(ROWS);
        }
    }

    @State(Scope.Benchmark)
    public static class Resident2d extends GpuState {
        @Param({"8192"})
        public String size;
        @Param({"naive"})
        public String variant;

        public Resident2d() {
            super(ROWS, Transfers.RESIDENT);
        }
    }

    @State(Scope.Benchmark)
    public static class EachCall2d extends GpuState {
        @Param({"8192"})
        public String size;
        @Param({"naive"})
        public String variant;

        public EachCall2d() {
            super(ROWS, Transfers.EACH_CALL);
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
    @Benchmark
    @Warmup(iterations = 1)
    @Measurement(iterations = 1)
    public Object serial2d(Serial2d s) {
        return s.run();
    }

    @Benchmark
    public Object gpuKernel2d(Resident2d s) {
        return s.run();
    }

    @Benchmark
    public Object gpuTotal2d(EachCall2d s) {
        return s.run();
    }
}
