package org.acc4j.runtime;

import org.acc4j.Kernels;

/**
 * Methods with host code between their nests, for the deferred-launch tests: rewritten into launch sites as the agent
 * rewrites them, and called plainly for the reference.
 */
public final class DeferSiteFixtures {
    private DeferSiteFixtures() {
    }

    /** The host code between the nests touches no array: the first nest's kernel is not waited for before it. */
    @Kernels
    public static void twoNests(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * 3 + 1;
        }
        int k = n % 7 + 2;
        for (int i = 0; i < n; i++) {
            b[i] = a[i] * k;
        }
    }

    /** The host code reads what the first nest wrote: the scope brings it to the host, after the kernel. */
    @Kernels
    public static void readsBetween(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * 5 + 2;
        }
        int first = a[0] + a[n - 1];
        for (int i = 0; i < n; i++) {
            b[i] = a[i] + first;
        }
    }
}
