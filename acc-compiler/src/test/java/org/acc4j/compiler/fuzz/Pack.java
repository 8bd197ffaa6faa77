package org.acc4j.compiler.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Compiles the batches of seeds {@code first .. first+count-1} ahead of time into a class directory:
 * {@code Pack dir first count}. The GPU machine's runtime has no javac; the GPU fuzz test loads these classes from
 * its class path instead (the nests themselves, and their inputs, are regenerated there from the seeds).
 */
public final class Pack {
    private Pack() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long first = Long.parseLong(args[1]);
        long count = Long.parseLong(args[2]);
        int classes = 0;
        for (long s = first; s < first + count; s += Fuzz.BATCH) {
            Batch b = Batch.of(s, (int) Math.min(Fuzz.BATCH, first + count - s), NestGenerator.Options.ALL);
            for (Map.Entry<String, byte[]> c : Javac.compile(b.className(), b.source()).entrySet()) {
                Path f = dir.resolve(c.getKey().replace('.', '/') + ".class");
                Files.createDirectories(f.getParent());
                Files.write(f, c.getValue());
                classes++;
            }
        }
        System.out.println("packed " + count + " nests (seeds " + first + ".." + (first + count - 1) + ") as " + classes
                + " classes in " + dir);
    }
}
