package org.acc4j.templates;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fixed-shape piece of PTX (a reduction tree, a scan, a math function) with named holes written
 * {@code ${NAME}}. Templates live as resources beside this class ({@code name.ptx}); filling one checks that
 * every hole gets a value and that no value is left unused, so a template and its caller cannot drift apart.
 */
public final class Template {
    private static final Pattern HOLE = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)}");

    private final String name;
    private final String text;

    private Template(String name, String text) {
        this.name = name;
        this.text = text;
    }

    /** Loads the template resource {@code name + ".ptx"} of this package. */
    public static Template load(String name) {
        try (InputStream in = Template.class.getResourceAsStream(name + ".ptx")) {
            if (in == null) {
                throw new IllegalArgumentException("no PTX template named " + name);
            }
            return new Template(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("reading PTX template " + name, e);
        }
    }

    /** A template from text, for tests and generated shapes. */
    public static Template of(String name, String text) {
        return new Template(name, Objects.requireNonNull(text));
    }

    public String name() {
        return name;
    }

    /** The names of the holes, sorted. */
    public TreeSet<String> holes() {
        TreeSet<String> holes = new TreeSet<>();
        Matcher m = HOLE.matcher(text);
        while (m.find()) {
            holes.add(m.group(1));
        }
        return holes;
    }

    /** The text with every hole replaced; a missing or unused value is an error naming the template. */
    public String fill(Map<String, String> values) {
        TreeSet<String> holes = holes();
        TreeSet<String> missing = new TreeSet<>(holes);
        missing.removeAll(values.keySet());
        TreeSet<String> unused = new TreeSet<>(values.keySet());
        unused.removeAll(holes);
        if (!missing.isEmpty() || !unused.isEmpty()) {
            throw new IllegalArgumentException("PTX template " + name + ": missing " + missing + ", unused " + unused);
        }
        Matcher m = HOLE.matcher(text);
        StringBuilder out = new StringBuilder(text.length() + 64);
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(values.get(m.group(1))));
        }
        m.appendTail(out);
        return out.toString();
    }
}
