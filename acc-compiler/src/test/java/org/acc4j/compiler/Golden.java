package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under {@code src/test/resources/golden/} of the module being tested (surefire runs with the
 * module as its working directory). With {@code -Dacc4j.updateGolden=true} they are (re)written instead of
 * compared.
 */
public final class Golden {
    public static final String UPDATE_PROPERTY = "acc4j.updateGolden";

    private Golden() {
    }

    public static boolean updating() {
        return Boolean.getBoolean(UPDATE_PROPERTY);
    }

    /** Compares {@code actual} with {@code dir/name}, or writes it there when updating. */
    public static void check(Path dir, String name, String actual) throws IOException {
        Path file = dir.resolve(name);
        if (updating()) {
            Files.createDirectories(dir);
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.exists(file)) {
            fail("no golden file " + file.toAbsolutePath() + "; create it with: mvn test -D" + UPDATE_PROPERTY
                    + "=true, then read it and check it before committing it");
        }
        String expected = Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
        assertEquals(expected, actual.replace("\r\n", "\n"), () -> name + " differs from its golden file "
                + file.toAbsolutePath() + "; if the change is intended, rerun with -D" + UPDATE_PROPERTY
                + "=true and review the diff");
    }
}
