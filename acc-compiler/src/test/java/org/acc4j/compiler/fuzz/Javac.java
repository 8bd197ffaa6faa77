package org.acc4j.compiler.fuzz;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.acc4j.Kernels;

/**
 * Compiles Java source in memory with the system compiler ({@code -g}, release 17, the acc-annotations classes on
 * the class path) and loads the result through a class loader that also serves each class's bytes as a resource,
 * as the runtime reads class files through {@code getResourceAsStream}.
 */
public final class Javac {
    private Javac() {
    }

    /**
     * The class files of one compilation unit, by binary name.
     *
     * @throws IllegalStateException with javac's messages when the source does not compile
     */
    public static Map<String, byte[]> compile(String className, String source) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in this runtime (" + System.getProperty("java.home") + ")");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<String, ByteArrayOutputStream> out = new HashMap<>();
        StandardJavaFileManager standard = javac.getStandardFileManager(diagnostics, null, null);
        JavaFileManager files = new ForwardingJavaFileManager<>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String name, JavaFileObject.Kind kind,
                                                       FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return out.computeIfAbsent(name, k -> new ByteArrayOutputStream());
                    }
                };
            }
        };
        JavaFileObject unit = new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        List<String> options = List.of("-g", "--release", "17", "-proc:none", "-classpath", annotationsPath());
        boolean ok = javac.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
        if (!ok) {
            StringBuilder why = new StringBuilder("javac rejects " + className + ":");
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    why.append("\n  line ").append(d.getLineNumber()).append(": ").append(d.getMessage(null));
                }
            }
            throw new IllegalStateException(why.toString());
        }
        Map<String, byte[]> classes = new HashMap<>();
        out.forEach((k, v) -> classes.put(k, v.toByteArray()));
        return classes;
    }

    /** Where the acc-annotations classes are (a directory or a jar). */
    static String annotationsPath() {
        try {
            return new File(Kernels.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Defines compiled classes on demand and serves their bytes as {@code .class} resources. */
    public static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;

        public Loader(Map<String, byte[]> classes, ClassLoader parent) {
            super(parent);
            this.classes = Map.copyOf(classes);
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            if (name.endsWith(".class")) {
                byte[] b = classes.get(name.substring(0, name.length() - 6).replace('/', '.'));
                if (b != null) {
                    return new ByteArrayInputStream(b);
                }
            }
            return super.getResourceAsStream(name);
        }

        /** The binary names this loader defines. */
        public List<String> names() {
            return new ArrayList<>(classes.keySet());
        }
    }
}
