package org.acc4j.samples.numerics;

import org.acc4j.Acc;

/**
 * The samples' common output. Every sample prints, in this order: a title line naming the device, a
 * {@code checksum: <hex>} line, {@code result: <name> <value>} lines (the key scalars, {@link Double#toString}
 * exact), human-readable lines, and last {@code verification: SUCCESSFUL} or {@code verification: FAILED}; on
 * failure it exits with status 1.
 */
public final class Report {
    private Report() {
    }

    /** The {@code i}-th argument as an int, else the default. */
    public static int arg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    public static void title(String name, String size) {
        System.out.printf("%s, %s, running on: %s%n", name, size, Acc.deviceName());
    }

    public static void checksum(Checksum sum) {
        System.out.println("checksum: " + sum.hex());
        System.out.println("checksum values: " + sum.values());
    }

    public static void result(String name, double value) {
        System.out.println("result: " + name + " " + value);
    }

    public static void result(String name, long value) {
        System.out.println("result: " + name + " " + value);
    }

    /** Prints the verdict (NPB's wording); exits with status 1 when {@code failure} is not null. */
    public static void verification(String failure) {
        if (failure == null) {
            System.out.println("verification: SUCCESSFUL");
        } else {
            System.out.println("verification: FAILED: " + failure);
            System.exit(1);
        }
    }
}
