package org.acc4j.runtime.data;

import org.acc4j.Data;

/** {@code @Data} methods whose regions the data tests enter through the offloader, as the agent's advice does. */
final class RegionFixtures {
    private RegionFixtures() {
    }

    @Data(copyin = {"a", "b"}, copyout = "c")
    static void threeArrays(double[] a, double[] b, double[] c) {
        // the region's body runs between enterRegion and exitRegion
    }

    @Data(copy = "m", create = "t")
    static void matrix(double[][] m, float[] t) {
        // the region's body runs between enterRegion and exitRegion
    }

    @Data(copyin = {"b", "z"}, copy = "c", copyout = "s", create = "g")
    static void narrow(byte[] b, boolean[][] z, char[][] c, short[] s, byte[][] g) {
        // the region's body runs between enterRegion and exitRegion
    }
}
