package org.acc4j.runtime.profile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests, enough for the profile: objects (to ordered maps), arrays (to lists), strings
 * with escapes, integers (to Long), true, false and null. Anything else, or anything after the value, is an error
 * naming the offset.
 */
public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The value {@code text} holds. */
    public static Object parse(String text) {
        Json j = new Json(text);
        Object v = j.value();
        j.space();
        if (j.at != text.length()) {
            throw j.error("text after the value");
        }
        return v;
    }

    /** Reads {@code path} ("regions", 0, "kernels", ...) from a parsed value. */
    public static Object get(Object value, Object... path) {
        Object v = value;
        for (Object p : path) {
            v = p instanceof Integer i ? ((List<?>) v).get(i) : ((Map<?, ?>) v).get(p);
            if (v == null) {
                throw new AssertionError("no " + p + " on the path " + java.util.Arrays.toString(path));
            }
        }
        return v;
    }

    /** A number at {@code path}. */
    public static long number(Object value, Object... path) {
        return (Long) get(value, path);
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{' -> {
                return object();
            }
            case '[' -> {
                return array();
            }
            case '"' -> {
                return string();
            }
            case 't' -> {
                return word("true", Boolean.TRUE);
            }
            case 'f' -> {
                return word("false", Boolean.FALSE);
            }
            case 'n' -> {
                return word("null", null);
            }
            default -> {
                return integer();
            }
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        at++;
        space();
        if (peek() == '}') {
            at++;
            return m;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw error("a member name");
            }
            String name = string();
            space();
            expect(':');
            if (m.put(name, value()) != null) {
                throw error("no duplicate member " + name);
            }
            space();
            if (peek() == ',') {
                at++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        at++;
        space();
        if (peek() == ']') {
            at++;
            return l;
        }
        while (true) {
            l.add(value());
            space();
            if (peek() == ',') {
                at++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) {
                throw error("the end of a string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                throw error("no raw control character in a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> throw error("a known escape");
            }
        }
    }

    private Long integer() {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (at == start || at < text.length() && ".eE".indexOf(text.charAt(at)) >= 0) {
            throw error("an integer");
        }
        return Long.parseLong(text.substring(start, at));
    }

    private Object word(String w, Object v) {
        if (!text.startsWith(w, at)) {
            throw error(w);
        }
        at += w.length();
        return v;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("JSON: expected " + expected + " at offset " + at + ": "
                + text.substring(Math.max(0, at - 20), Math.min(text.length(), at + 20)));
    }
}
