package dev.autocdc.cluster;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;

/**
 * Every Flink option key on the test's classpath: the {@link ConfigOption} constants (and their
 * fallback keys) of Flink's {@code *Options} classes in the Flink jars, the same classes Flink's
 * documentation is generated from. Some keys are templates, with a name the user picks; they are
 * accepted by {@link #TEMPLATES}.
 */
final class FlinkOptionKeys {
    /**
     * Keys with a user-chosen part: {@code metrics.reporter.<name>.<setting>} (MetricOptions
     * documents the reporter settings under a name of the user's).
     */
    static final List<Pattern> TEMPLATES =
            List.of(Pattern.compile("metrics\\.reporter\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_.-]+"));

    private final Set<String> keys;

    private FlinkOptionKeys(Set<String> keys) {
        this.keys = keys;
    }

    static FlinkOptionKeys onClasspath() throws IOException {
        Set<String> keys = new HashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!new File(entry).getName().startsWith("flink-") || !entry.endsWith(".jar")) {
                continue;
            }
            try (JarFile jar = new JarFile(entry)) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    String name = entries.nextElement().getName();
                    if (name.startsWith("org/apache/flink/")
                            && (name.endsWith("Options.class") || name.endsWith("Option.class"))
                            && !name.contains("$")) {
                        collect(name.replace('/', '.').replace(".class", ""), keys);
                    }
                }
            }
        }
        return new FlinkOptionKeys(keys);
    }

    private static void collect(String className, Set<String> keys) {
        Class<?> c;
        try {
            c = Class.forName(className, true, FlinkOptionKeys.class.getClassLoader());
        } catch (Throwable e) {
            return; // a class whose dependencies are absent here holds no option we use
        }
        for (Field f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())
                    && ConfigOption.class.isAssignableFrom(f.getType())) {
                try {
                    f.setAccessible(true);
                    ConfigOption<?> option = (ConfigOption<?>) f.get(null);
                    keys.add(option.key());
                    for (FallbackKey k : option.fallbackKeys()) {
                        keys.add(k.getKey());
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not readable: skipped
                }
            }
        }
    }

    int size() {
        return keys.size();
    }

    boolean isOption(String key) {
        return keys.contains(key) || TEMPLATES.stream().anyMatch(p -> p.matcher(key).matches());
    }
}
