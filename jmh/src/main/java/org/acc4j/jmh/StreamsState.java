package org.acc4j.jmh;

import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Java parallel streams over all cores ({@link Streams}); the setup checks one call's result against the serial
 * reference before anything is timed.
 */
public abstract class StreamsState {
    private final Sample sample;
    Workload workload;
    Object[] args;
    Consumer<Object[]> body;

    protected StreamsState(Sample sample) {
        this.sample = sample;
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        setUp(params.getParam("size"));
    }

    void setUp(String size) {
        workload = Workload.of(sample, size);
        body = sample.streams();
        args = workload.freshArgs();
        body.accept(args);
        workload.check(sample.name() + " parallel streams", args, null);
    }

    /** One call of the parallel version. */
    public Object run() {
        body.accept(args);
        return args;
    }
}
