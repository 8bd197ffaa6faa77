package org.acc4j.jmh;

import java.util.function.Function;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Java parallel streams over all cores ({@link Streams}); the setup checks one call's result against the serial
 * reference before anything is timed: bit for bit, against the sample's reference or, where the streams version
 * adds in another order (the dot product), against a serial method adding in its order
 * ({@link Workload#expectedStreams}).
 */
public abstract class StreamsState {
    private final Sample sample;
    Workload workload;
    Object[] args;
    Function<Object[], Object> body;

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
        Object returned = body.apply(args);
        workload.checkStreams(sample.name() + " parallel streams", args, returned);
    }

    /** One call of the parallel version: what it computes (a reduction's value), else its arguments. */
    public Object run() {
        Object returned = body.apply(args);
        return returned != null ? returned : args;
    }
}
