package dev.autocdc.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jar for `flink run` and FlinkDeployment (built by the job module before this module's tests)
 * carries our code and the Kafka connector, and no Flink runtime and no Kafka broker (DESIGN,
 * Packaging).
 */
class ClusterJarTest {
    @Test
    void theClusterJarCarriesNoFlinkRuntimeAndNoBroker() throws Exception {
        Path jar;
        try (Stream<Path> files = Files.list(Path.of("..", "job", "target"))) {
            jar =
                    files.filter(p -> p.getFileName().toString().endsWith("-cluster.jar"))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new AssertionError(
                                                    "job/target has no -cluster.jar: run the build"
                                                            + " through the package phase"));
        }
        List<String> entries = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            j.stream().forEach(e -> entries.add(e.getName()));
        }
        assertThat(entries)
                .contains(
                        "dev/autocdc/job/cli/AutoCdcCli.class",
                        "dev/autocdc/operators/flink/AutoCdcFunction.class",
                        "org/apache/flink/connector/kafka/source/KafkaSource.class",
                        "META-INF/services/org.apache.flink.table.factories.Factory");
        assertThat(entries)
                .noneMatch(
                        e ->
                                e.startsWith("kafka/server/")
                                        || e.startsWith("org/apache/kafka/controller/")
                                        || e.startsWith("dev/autocdc/embedded/")
                                        || e.startsWith("org/apache/flink/runtime/")
                                        || e.startsWith(
                                                "org/apache/flink/streaming/api/environment/")
                                        || e.startsWith("org/apache/flink/table/planner/"));
        try (JarFile j = new JarFile(jar.toFile())) {
            String services =
                    new String(
                            j.getInputStream(
                                            j.getEntry(
                                                    "META-INF/services/org.apache.flink.table.factories.Factory"))
                                    .readAllBytes());
            assertThat(services).contains("KafkaDynamicTableFactory");
        }
    }
}
