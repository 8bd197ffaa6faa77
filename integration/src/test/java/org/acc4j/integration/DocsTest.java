package org.acc4j.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product docs (README.md, docs/*.md) describe the product, not how it was made: no work sessions, issue
 * numbers, device-run names, commit hashes, private run scripts or paper numbers. Run logs live under docs/runs/, which
 * this does not read. Also checks that CI runs the README's test command.
 */
class DocsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** Case-sensitive where a lower-case form is ordinary English ("run a program"). */
    private static final List<Pattern> FORBIDDEN = List.of(
            Pattern.compile("\\bsessions?\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bissues? #?\\d+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b[Rr]uns? [A-Z]\\d?\\b(?![-'’])"),
            Pattern.compile("\\b[Rr]un \\d+\\b(?! (?:times|threads|iterations))"),
            Pattern.compile("\\bseeds? ?0\\d\\d\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bthe seed'?s\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\.run\\d*\\.sh"),
            Pattern.compile("\\bcommit\\b[ :|]*[0-9a-f]{7,40}\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b[0-9a-f]{40}\\b"),
            Pattern.compile("\\b(?:TODO|FIXME|XXX)\\b"));

    @Test
    void productDocsCarryNoDevelopmentHistory() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                for (Pattern p : FORBIDDEN) {
                    Matcher m = p.matcher(lines.get(i));
                    if (m.find()) {
                        hits.add(ROOT.relativize(doc) + ":" + (i + 1) + ": '" + m.group() + "' in: " + lines.get(i).strip());
                    }
                }
            }
        }
        assertEquals(List.of(), hits, () -> "words that do not belong in the product docs:\n" + String.join("\n", hits));
    }

    @Test
    void theCheckSeesWhatItShould() {
        for (String bad : List.of("in session 4 we", "issue 6", "issue #12", "run B2 of", "run A:", "seed 001's swap",
                "scripts/.run1.sh", "commit ff1fa8c", "TODO later")) {
            assertTrue(FORBIDDEN.stream().anyMatch(p -> p.matcher(bad).find()), bad);
        }
        for (String fine : List.of("run a program", "a fixed seed 42", "runs CUDA", "run Java", "issues a launch",
                "commits to the present table", "run 3 times")) {
            assertTrue(FORBIDDEN.stream().noneMatch(p -> p.matcher(fine).find()), fine);
        }
    }

    @Test
    void ciRunsTheReadmesTestCommand() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        assertTrue(readme.contains("```sh\nmvn -B verify\n```"), "README's test command");
        assertTrue(Files.readAllLines(ROOT.resolve(".ci/run")).contains("mvn -B verify"), ".ci/run runs it");
    }

    @Test
    void theGuideKeepsItsSections() throws IOException {
        String guide = Files.readString(ROOT.resolve("docs/guide.md"));
        assertTrue(guide.contains("## Methods with host code around their loops\n\nEach loop nest of a @Kernels method is"
                + " compiled and launched on its own; the code around it stays Java."), "the section the guide keeps");
    }

    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        assertTrue(docs.size() >= 4, docs::toString);
        return docs;
    }
}
