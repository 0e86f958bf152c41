package dev.autocdc.cluster;

import static dev.autocdc.cluster.K8sManifests.K8S;
import static dev.autocdc.cluster.K8sManifests.ROOT;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Offline, what the image of {@code k8s/Dockerfile} can run: Flink's own classpath (the
 * distribution's {@code lib/}, here the local cluster's classpath without what that adds for the
 * lake tests) with the files the Dockerfile adds, in a class loader of their own, must hold what
 * each documented example needs: the connectors, catalogs and formats by their identifiers, the
 * PostgreSQL dialect of Flink's JDBC connector and the driver, and Hadoop's classes for the lake
 * catalogs. Without the jars the image adds to {@code lib/}, the lake and database ones are
 * missing.
 */
class ImageClasspathTest {
    /** What the local cluster's classpath has that a Flink distribution's {@code lib/} has not. */
    private static final Pattern NOT_IN_FLINK =
            Pattern.compile(
                    "(paimon|iceberg|hadoop|flink-connector-jdbc|postgresql|netty-|guava-|"
                            + "async-profiler).*\\.jar");

    /** The documented examples, and the factory identifiers each needs. */
    private static final Map<String, List<String>> EXAMPLES =
            Map.of(
                    "examples/employees_kafka.sql, docs/flows.md (Kafka, JSON)",
                    List.of("kafka", "upsert-kafka", "json"),
                    "docs/flows.md capture formats, the Debezium walkthrough",
                    List.of("debezium-json", "canal-json", "maxwell-json", "ogg-json"),
                    "docs/targets.md Paimon (CREATE CATALOG ... 'type' = 'paimon')",
                    List.of("paimon"),
                    "docs/targets.md Iceberg (CREATE CATALOG ... 'type' = 'iceberg')",
                    List.of("iceberg"),
                    "docs/targets.md PostgreSQL ('connector' = 'jdbc')",
                    List.of("jdbc"),
                    "docs/snapshots.md from a database ('connector' = 'jdbc-snapshots')",
                    List.of("jdbc-snapshots"),
                    "docs/snapshots.md files ('connector' = 'filesystem')",
                    List.of("filesystem"));

    @Test
    void theImageHoldsWhatEachDocumentedExampleNeeds() throws Exception {
        try (URLClassLoader image = loader(true)) {
            Set<String> identifiers = factoryIdentifiers(image);
            EXAMPLES.forEach(
                    (example, needs) -> assertThat(identifiers).as(example).containsAll(needs));
            // Paimon's and Iceberg's catalogs need Hadoop's classes even on a local warehouse
            assertThat(image.loadClass("org.apache.hadoop.conf.Configuration")).isNotNull();
            // the PostgreSQL target and jdbc-snapshots: the dialect, found by the URL, and the
            // driver
            Object dialect =
                    image.loadClass(
                                    "org.apache.flink.connector.jdbc.core.database.JdbcFactoryLoader")
                            .getMethod("loadDialect", String.class, ClassLoader.class)
                            .invoke(null, "jdbc:postgresql://db:5432/crm", image);
            assertThat(dialect.getClass().getName()).contains("Postgres");
            assertThat(image.loadClass("org.postgresql.Driver")).isNotNull();
        }
    }

    @Test
    void withoutTheJarsItAddsToLibTheLakeAndDatabaseExamplesCannotRun() throws Exception {
        try (URLClassLoader flinkAlone = loader(false)) {
            Set<String> identifiers = factoryIdentifiers(flinkAlone);
            assertThat(identifiers).contains("kafka", "jdbc-snapshots", "filesystem", "json");
            assertThat(identifiers).doesNotContain("paimon", "iceberg", "jdbc");
        }
    }

    /** Flink's classpath and the image's cluster jar, with the jars for lib/ when asked. */
    private static URLClassLoader loader(boolean withLib) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry :
                Files.readString(Path.of("target", "cluster-classpath.txt")).trim().split(":")) {
            Path jar = Path.of(entry);
            if (!NOT_IN_FLINK.matcher(jar.getFileName().toString()).matches()) {
                urls.add(jar.toUri().toURL());
            }
        }
        Map<String, String> files =
                new OperatorStandalone(
                                K8sManifests.read(K8S.resolve("autocdc-deployment.yaml")),
                                Files.readString(K8S.resolve("Dockerfile")))
                        .imageFiles(ROOT);
        files.forEach(
                (inImage, source) -> {
                    if (withLib || !inImage.startsWith("/opt/flink/lib/")) {
                        urls.add(url(ROOT.resolve(source)));
                    }
                });
        assertThat(files.keySet()).anyMatch(f -> f.startsWith("/opt/flink/lib/"));
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    private static URL url(Path p) {
        try {
            return p.toUri().toURL();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The identifiers of every table factory the class loader's service files list. */
    private static Set<String> factoryIdentifiers(ClassLoader loader) throws Exception {
        Class<?> factory = loader.loadClass("org.apache.flink.table.factories.Factory");
        Set<String> identifiers = new TreeSet<>();
        Iterator<?> it = ServiceLoader.load(factory, loader).iterator();
        while (it.hasNext()) {
            try {
                Object f = it.next();
                identifiers.add((String) factory.getMethod("factoryIdentifier").invoke(f));
            } catch (ServiceConfigurationError unloadable) {
                // a factory whose own dependencies are absent: not one of the examples'
            }
        }
        return identifiers;
    }
}
