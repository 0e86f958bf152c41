package dev.autocdc.cluster;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MetricOptions;

/**
 * Every Flink option on the test's classpath: the {@link ConfigOption} constants (and their
 * fallback keys) of Flink's {@code *Options} classes in the Flink jars, the same classes Flink's
 * documentation is generated from; and whether a value parses as the option's type.
 *
 * <p>One family of keys is a template, with a name the user picks: {@code
 * metrics.reporter.<name>.<setting>}, where the setting is one of the reporter settings of {@link
 * MetricOptions} (their keys are relative: {@code factory.class}, {@code interval}, ...) or one of
 * {@link #PROMETHEUS_SETTINGS}, which the Prometheus reporter reads without declaring options.
 */
final class FlinkOptionKeys {
    /** The Prometheus reporter's own settings (flink-metrics-prometheus declares no options). */
    static final Set<String> PROMETHEUS_SETTINGS = Set.of("port", "filterLabelValueCharacters");

    private static final Pattern REPORTER =
            Pattern.compile("metrics\\.reporter\\.[A-Za-z0-9_-]+\\.(.+)");

    private final Map<String, ConfigOption<?>> options;
    private final Map<String, ConfigOption<?>> reporterOptions;

    private FlinkOptionKeys(
            Map<String, ConfigOption<?>> options, Map<String, ConfigOption<?>> reporterOptions) {
        this.options = options;
        this.reporterOptions = reporterOptions;
    }

    static FlinkOptionKeys onClasspath() throws IOException {
        Map<String, ConfigOption<?>> options = new HashMap<>();
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
                        collect(name.replace('/', '.').replace(".class", ""), options);
                    }
                }
            }
        }
        Map<String, ConfigOption<?>> reporter = new HashMap<>();
        collect(MetricOptions.class.getName(), reporter);
        reporter.keySet().removeIf(k -> k.startsWith("metrics.") || k.startsWith("<"));
        return new FlinkOptionKeys(options, reporter);
    }

    private static void collect(String className, Map<String, ConfigOption<?>> options) {
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
                    options.put(option.key(), option);
                    for (FallbackKey k : option.fallbackKeys()) {
                        options.put(k.getKey(), option);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // not readable: skipped
                }
            }
        }
    }

    int size() {
        return options.size();
    }

    /**
     * What is wrong with the setting, or null: an unknown key, or a value that does not parse as
     * the option's type (a reporter's factory class must be on the classpath).
     */
    String problem(String key, String value) {
        ConfigOption<?> option = options.get(key);
        Matcher reporter = REPORTER.matcher(key);
        if (option == null && reporter.matches()) {
            String setting = reporter.group(1);
            if (PROMETHEUS_SETTINGS.contains(setting)) {
                return null;
            }
            option = reporterOptions.get(setting);
            if (option != null && option.key().equals(MetricOptions.REPORTER_FACTORY_CLASS.key())) {
                try {
                    Class.forName(value, false, FlinkOptionKeys.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    return key + ": no class " + value;
                }
            }
            key = setting;
        }
        if (option == null) {
            return key + " is no Flink option";
        }
        try {
            Configuration.fromMap(Map.of(key, value)).get(option);
        } catch (RuntimeException e) {
            return key + ": " + value + " does not parse: " + e.getMessage();
        }
        return null;
    }
}
