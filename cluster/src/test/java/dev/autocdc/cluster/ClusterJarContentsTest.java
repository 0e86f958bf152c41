package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the cluster jar brings to a plain Flink 2.2.1 distribution, checked offline against the jars
 * {@code deploy/local-cluster} puts on its classpath (Flink's own artifacts from Maven Central:
 * flink-dist itself is not published there, so no unmodified distribution runs here).
 * docs/deploy.md#on-a-plain-flink-distribution lists the same: the jar carries our code, the Kafka
 * connector with its client and the State Processor API; it carries no class of Flink's own jars,
 * and none of the lake formats, Hadoop or JDBC, which go into the distribution's lib/.
 */
class ClusterJarContentsTest {
    /** Jars the local cluster adds for the lake targets; a plain distribution has none of them. */
    private static final List<String> LAKE_AND_HADOOP =
            List.of(
                    "paimon-",
                    "iceberg-",
                    "hadoop-",
                    "netty-",
                    "guava-",
                    "failureaccess-",
                    "checker-qual-",
                    "error_prone_",
                    "j2objc-",
                    "snappy-java-",
                    "commons-logging-");

    /**
     * The jar carries the project's licence (Apache-2.0, the repository's LICENSE) once, and one
     * NOTICE: the project's, then the notices of the components it bundles (the Kafka connector's,
     * merged by the shade plugin).
     */
    @Test
    void theJarCarriesTheLicenceAndTheNoticesOfWhatItBundles() throws Exception {
        try (JarFile jar = new JarFile(LocalCluster.clusterJar().toFile())) {
            String license = text(jar, "META-INF/LICENSE");
            assertThat(license)
                    .isEqualTo(Files.readString(Path.of("..", "LICENSE")))
                    .contains("Apache License")
                    .contains("Version 2.0, January 2004");
            String notice = text(jar, "META-INF/NOTICE").strip();
            assertThat(notice)
                    .startsWith("AUTO CDC on Flink")
                    .contains("Copyright 2026 The AUTO CDC on Flink authors")
                    .contains("Flink : Connectors : Kafka");
            assertThat(jar.stream().map(e -> e.getName()))
                    .as("no other licence or notice file at the top of META-INF")
                    .noneMatch(n -> n.matches("META-INF/(LICENSE|NOTICE)\\.(txt|md)"));
        }
    }

    private static String text(JarFile jar, String entry) throws IOException {
        var e = jar.getEntry(entry);
        assertThat(e).as(entry).isNotNull();
        try (var in = jar.getInputStream(e)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void theJarBundlesTheKafkaConnectorAndNothingTheDistributionHas() throws Exception {
        Set<String> classes = classes(LocalCluster.clusterJar());
        for (String bundled :
                List.of(
                        "dev/autocdc/job/cli/AutoCdcCli.class",
                        "dev/autocdc/operators/flink/AutoCdcFunction.class",
                        "org/apache/flink/connector/kafka/source/KafkaSource.class",
                        "org/apache/flink/streaming/connectors/kafka/table/KafkaDynamicTableFactory.class",
                        "org/apache/kafka/clients/producer/KafkaProducer.class",
                        "org/apache/flink/state/api/SavepointWriter.class",
                        "picocli/CommandLine.class")) {
            assertThat(classes).as("bundled").contains(bundled);
        }
        for (String absent :
                List.of(
                        "org/apache/flink/runtime/",
                        "org/apache/flink/api/common/",
                        "org/apache/flink/table/planner/",
                        "org/apache/flink/table/api/",
                        "org/apache/flink/formats/json/",
                        "org/apache/flink/connector/file/",
                        "org/apache/paimon/",
                        "org/apache/iceberg/",
                        "org/apache/hadoop/",
                        "org/apache/flink/connector/jdbc/",
                        "org/postgresql/",
                        "kafka/server/",
                        "dev/autocdc/embedded/")) {
            assertThat(classes).as("not bundled").noneMatch(c -> c.startsWith(absent));
        }
        Set<String> sharedWith = new TreeSet<>();
        for (String entry :
                Files.readString(Path.of("target", "cluster-classpath.txt")).strip().split(":")) {
            String name = Path.of(entry).getFileName().toString();
            if (!name.endsWith(".jar") || LAKE_AND_HADOOP.stream().anyMatch(name::startsWith)) {
                continue;
            }
            Set<String> shared = new HashSet<>(classes(Path.of(entry)));
            shared.retainAll(classes);
            if (name.startsWith("flink-")) {
                assertThat(shared).as("classes of " + name + " in the cluster jar").isEmpty();
            } else if (!shared.isEmpty()) {
                sharedWith.add(name.replaceAll("-[0-9][^-]*\\.jar$", ""));
            }
        }
        // the copies docs/deploy.md names: the job's own, loaded child-first
        assertThat(sharedWith).containsExactlyInAnyOrder("commons-lang3", "lz4-java");
    }

    /** The class files of a jar, META-INF's multi-release copies left out. */
    private static Set<String> classes(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.stream()
                    .map(e -> e.getName())
                    .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                    .collect(Collectors.toSet());
        }
    }
}
