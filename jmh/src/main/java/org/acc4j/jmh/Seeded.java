package org.acc4j.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** Values in [-1, 1) from a seed and the index (SplitMix64), filled in parallel and the same every run. */
final class Seeded {
    private long stream;

    Seeded(long seed) {
        this.stream = seed;
    }

    /** {@code n} values. */
    double[] array(int n) {
        long base = mix(stream++);
        double[] a = new double[n];
        IntStream.range(0, n).parallel().forEach(i -> a[i] = unit(mix(base + i * 0x9E3779B97F4A7C15L)));
        return a;
    }

    /** One value. */
    double next() {
        return unit(mix(stream++));
    }

    /**
     * A 3D kernel's arguments: seeded grids before {@code output}, a zeroed grid at it, then nx, ny, nz and
     * {@code scalars} coefficients in [-0.25, 0.25).
     */
    Object[] grid(int[] d, int output, int scalars) {
        if (d.length != 3) {
            throw new IllegalArgumentException("a 3D grid needs nx x ny x nz, got " + d.length + " sizes");
        }
        int points = Math.multiplyExact(Math.multiplyExact(d[0], d[1]), d[2]);
        List<Object> args = new ArrayList<>();
        for (int i = 0; i < output; i++) {
            args.add(array(points));
        }
        args.add(new double[points]);
        args.add(d[0]);
        args.add(d[1]);
        args.add(d[2]);
        for (int i = 0; i < scalars; i++) {
            args.add(next() * 0.25);
        }
        return args.toArray();
    }

    private static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53 * 2 - 1;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
