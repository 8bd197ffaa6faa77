package org.acc4j.compiler.pass;

/**
 * The block of a 3D stencil nest kept at one point per thread ({@link Marching.Shape#points()}): {@code x} threads
 * along the stride-1 loop, {@code y} along the remaining one and {@code z} along the loop of largest stride.
 */
public record PointBlock(int x, int y, int z) {
    /** The mapping name of a 3D nest kept at one point per thread. */
    public static final String MAPPING = "stencil points, one pass a level where the grid covers it";
    /**
     * The same with the x threads from the stride-1 loop's lower bound rounded down to a multiple of 32
     * ({@link Marching#ALIGN}), so that each warp's elements start where a row's do.
     */
    public static final String MAPPING_ALIGNED = "stencil points, aligned x, one pass a level where the grid covers it";

    /** {@code XxYxZ}, at most 1024 threads, x a multiple of 32, z at most 64. */
    static PointBlock parse(String v) {
        String[] t = v.trim().split("x");
        PointBlock p = new PointBlock(Integer.parseInt(t[0].trim()), Integer.parseInt(t[1].trim()),
                Integer.parseInt(t[2].trim()));
        if (p.x <= 0 || p.x % 32 != 0 || p.y <= 0 || p.z <= 0 || p.z > 64 || (long) p.x * p.y * p.z > 1024) {
            throw new IllegalArgumentException(v);
        }
        return p;
    }

    @Override
    public String toString() {
        return x + "x" + y + "x" + z;
    }
}
