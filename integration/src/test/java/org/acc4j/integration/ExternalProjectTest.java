package org.acc4j.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * acc4j as a user gets it: a Maven project outside this build (src/test/project, with the README's first example as
 * its source) is built against acc-annotations and acc-agent installed in a scratch repository, then run under the
 * agent on this machine's host path. Third-party plugins come from the user's repository (read as a remote
 * repository), so the build works offline once this build's own plugins are there.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExternalProjectTest {
    private static final Path TARGET = Path.of("target").toAbsolutePath();
    private static final Path PROJECT = TARGET.resolve("it/first-kernel");
    private static final Path README = Path.of("..", "README.md").toAbsolutePath().normalize();
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final Pattern EXAMPLE = Pattern.compile("```java\\n(package example;.*?)```", Pattern.DOTALL);
    private static final Path JDK25 = Path.of(System.getProperty("it.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    private static String mainClass;

    @BeforeAll
    static void project() throws IOException {
        Assumptions.assumeTrue(System.getProperty("it.maven.home") != null, "not run by Maven: no Maven to call");
        deleteTree(TARGET.resolve("it"));
        Files.createDirectories(PROJECT);
        Files.copy(Path.of("src/test/project/pom.xml"), PROJECT.resolve("pom.xml"));
        Matcher m = EXAMPLE.matcher(Files.readString(README));
        assertTrue(m.find(), "README.md has a ```java block starting with 'package example;'");
        String source = m.group(1);
        Matcher name = Pattern.compile("public (?:final )?class (\\w+)").matcher(source);
        assertTrue(name.find(), source);
        mainClass = "example." + name.group(1);
        Path file = PROJECT.resolve("src/main/java/example/" + name.group(1) + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
    }

    @Test
    @Order(1)
    void buildsAgainstTheInstalledArtifacts() throws Exception {
        Path settings = Files.writeString(TARGET.resolve("it/settings.xml"), settings(Path.of(System.getProperty("it.user.repo"))));
        String mvn = Path.of(System.getProperty("it.maven.home"), "bin", "mvn").toString();
        Result r = run(PROJECT, Map.of("JAVA_HOME", System.getProperty("java.home"), "MAVEN_OPTS", "-Djansi.noreset=true"),
                List.of(mvn, "-B", "-nsu", "-s", settings.toString(), "-Dmaven.repo.local=" + System.getProperty("it.repo"),
                        "-Dacc4j.version=" + System.getProperty("acc4j.version"), "package"));
        assertEquals(0, r.code, r::both);
        assertTrue(Files.isRegularFile(PROJECT.resolve("target/acc.jar")), r::both);
        assertFalse(r.out.contains("\u001b["), () -> "ANSI escape codes in the build's output" + r.both());
    }

    @Test
    @Order(2)
    void runsUnderTheAgentOnTheHostAndLeavesNoTemporaryFiles() throws Exception {
        Path tmp = Files.createDirectories(TARGET.resolve("it/tmp"));
        Path cache = TARGET.resolve("it/cache");
        Result r = runExample(JAVA, List.of(), tmp, cache);
        assertEquals(0, r.code, r::both);
        // no GPU here: the nest runs on the host's cores, said once with the thread count
        assertTrue(r.out.contains("ran on: host (multicore, ") && r.out.contains("y[1048575] = 2097151.0"), r::both);
        assertTrue(r.err.contains("acc4j: ") && r.err.contains("@Kernels methods run on the host's cores (multicore), "),
                r::both);
        assertFalse(r.err.contains("WARNING"), r::both);
        assertEquals(List.of(), list(tmp), "nothing left in java.io.tmpdir");
        // the driver library sits in the cache and is reused by the next run
        Path lib = cache.resolve("acc4j/" + System.getProperty("acc4j.version") + "/libJCudaDriver-12.0.0-linux-x86_64.so");
        assertTrue(Files.isRegularFile(lib), () -> "cache: " + list(cache.resolve("acc4j")) + r.both());
        Files.setLastModifiedTime(lib, FileTime.fromMillis(0));
        assertEquals(0, runExample(JAVA, List.of(), tmp, cache).code);
        assertEquals(FileTime.fromMillis(0), Files.getLastModifiedTime(lib), "the cached library is not written again");
        assertEquals(List.of(), list(tmp));
    }

    @Test
    @Order(2)
    void runsAsPlainJavaWithoutTheAgent() throws Exception {
        Path annotations = Path.of(System.getProperty("it.repo"), "org/acc4j/acc-annotations", System.getProperty("acc4j.version"),
                "acc-annotations-" + System.getProperty("acc4j.version") + ".jar");
        Result r = run(PROJECT, Map.of(), List.of(JAVA, "-cp", "target/classes" + File.pathSeparator + annotations, mainClass));
        assertEquals(0, r.code, r::both);
        assertEquals("ran on: host, y[1048575] = 2097151.0", r.out.strip(), r::both);
        assertEquals("", r.err, r::both);
    }

    @Test
    @Order(2)
    void onJdk25NoWarningWithTheDocumentedFlag() throws Exception {
        Path java = JDK25.resolve("bin/java");
        Assumptions.assumeTrue(Files.isExecutable(java), "no JDK 25 at " + JDK25 + " (set -Dit.jdk25=path)");
        Path tmp = Files.createDirectories(TARGET.resolve("it/tmp25"));
        Result r = runExample(java.toString(), List.of("--enable-native-access=ALL-UNNAMED"), tmp, TARGET.resolve("it/cache"));
        assertEquals(0, r.code, r::both);
        assertTrue(r.out.contains("ran on: host"), r::both);
        assertFalse(r.err.contains("WARNING"), r::both);
        assertEquals(List.of(), list(tmp));
    }

    @Test
    @Order(2)
    void theJarsCommandLinePrintsUsage() throws Exception {
        Result help = run(PROJECT, Map.of(), List.of(JAVA, "-jar", "target/acc.jar", "help"));
        assertEquals(0, help.code, help::both);
        assertTrue(help.out.contains("usage: java -jar acc.jar explain"), help::both);
        Result unknown = run(PROJECT, Map.of(), List.of(JAVA, "-jar", "target/acc.jar", "frobnicate"));
        assertEquals(2, unknown.code, unknown::both);
        assertTrue(unknown.err.contains("usage:"), unknown::both);
    }

    private static Result runExample(String java, List<String> flags, Path tmp, Path cache) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp));
        cmd.addAll(flags);
        cmd.addAll(List.of("-javaagent:target/acc.jar", "-cp", "target/classes", mainClass));
        return run(PROJECT, Map.of("XDG_CACHE_HOME", cache.toString()), cmd);
    }

    /** The user's repository as a remote repository (read only), Maven Central after it. */
    private static String settings(Path userRepo) {
        String url = userRepo.toUri().toString();
        String repo = "<id>user-repository</id><url>" + url + "</url>"
                + "<releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots>";
        return "<settings><profiles><profile><id>it</id>"
                + "<repositories><repository>" + repo + "</repository></repositories>"
                + "<pluginRepositories><pluginRepository>" + repo + "</pluginRepository></pluginRepositories>"
                + "</profile></profiles><activeProfiles><activeProfile>it</activeProfile></activeProfiles></settings>\n";
    }

    private record Result(int code, String out, String err) {
        String both() {
            return "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private static Result run(Path dir, Map<String, String> env, List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ACC") || k.equals("MAVEN_OPTS") || k.equals("JAVA_TOOL_OPTIONS"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = read(p, false);
        CompletableFuture<String> err = read(p, true);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish in 300 s");
        }
        return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    }

    private static CompletableFuture<String> read(Process p, boolean stderr) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String((stderr ? p.getErrorStream() : p.getInputStream()).readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
