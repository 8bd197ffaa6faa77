package org.acc4j.jmh;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * c = a + b in three modes: serial Java, parallel streams, and acc4j with the data resident on the device.
 * Run with {@code java -javaagent:acc.jar -jar benchmarks.jar VectorAdd} (forks inherit the agent flag via
 * {@code -jvmArgsAppend}). The setup checks the result against serial Java before anything is timed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class VectorAddBench {
    @Param({"16777216"})
    int n;

    double[] a;
    double[] b;
    double[] c;

    @Kernels
    static void add(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        Random r = new Random(42);
        a = new double[n];
        b = new double[n];
        c = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
            b[i] = r.nextGaussian();
        }
        add(a, b, c, n);
        for (int i = 0; i < n; i++) {
            if (Double.doubleToLongBits(c[i]) != Double.doubleToLongBits(a[i] + b[i])) {
                throw new IllegalStateException("acc4j result differs from Java at " + i);
            }
        }
        Acc.copyin(a, b);
        Acc.create(c);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Acc.delete(a, b, c);
    }

    @Benchmark
    public double[] serial() {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
        return c;
    }

    @Benchmark
    public double[] parallelStreams() {
        IntStream.range(0, n).parallel().forEach(i -> c[i] = a[i] + b[i]);
        return c;
    }

    @Benchmark
    public double[] accResident() {
        add(a, b, c, n);
        return c;
    }
}
