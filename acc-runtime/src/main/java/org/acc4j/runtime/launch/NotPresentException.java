package org.acc4j.runtime.launch;

/**
 * A nest of a {@code @Kernels(defaultPresent = true)} method uses an array that is not present on the device
 * (OpenACC's {@code default(present)}): the call throws this before the nest's kernel runs.
 */
public final class NotPresentException extends IllegalStateException {
    private final String array;

    NotPresentException(String method, String array, String description) {
        super("acc4j: " + method + " has defaultPresent = true, but the array " + array + " (" + description
                + ") is not present on the device: make it present first (Acc.copyin, or @Data around the call)");
        this.array = array;
    }

    /** The array's name in the nest. */
    public String array() {
        return array;
    }
}
