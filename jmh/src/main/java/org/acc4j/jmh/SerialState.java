package org.acc4j.jmh;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Serial Java: the sample's plain reference method, the very code every other mode is checked against. A
 * concrete state names the sample and declares the {@code size} parameter.
 */
public abstract class SerialState {
    private final Sample sample;
    Workload workload;
    Object[] args;

    protected SerialState(Sample sample) {
        this.sample = sample;
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        setUp(params.getParam("size"));
    }

    void setUp(String size) {
        workload = Workload.of(sample, size);
        args = workload.freshArgs();
    }

    /** One call of the reference. */
    public Object run() {
        workload.reference().call(args);
        return args;
    }
}
