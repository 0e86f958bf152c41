package dev.autocdc.job.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink Kubernetes Operator (releases up to 1.15) starts a standalone application with {@code
 * --host <pod IP>} when high availability is on, and Flink 2's entry point passes it on to the
 * job's main, before the command ({@code KubernetesApplicationTest} runs it so). The cluster's
 * entry point drops it; a command line elsewhere keeps refusing it.
 */
class OperatorHostTest {
    @TempDir Path dir;
    private String flow;

    /** The users example, its JSON file named by an absolute path. */
    @BeforeEach
    void flow() throws Exception {
        Path examples = Path.of("..", "examples").toAbsolutePath().normalize();
        Path file = dir.resolve("users.sql");
        Files.writeString(
                file,
                Files.readString(examples.resolve("users_history.sql"))
                        .replace("'examples/users_cdf.json'", "'" + examples + "/users_cdf.json'"));
        flow = file.toString();
    }

    @Test
    void theClusterEntryPointRunsTheCommandAfterTheOperatorsHost() {
        assertThatCode(
                        () ->
                                AutoCdcCli.main(
                                        new String[] {
                                            "--host", "10.0.0.7", "validate", "--flow", flow
                                        }))
                .doesNotThrowAnyException();
    }

    @Test
    void onlyALeadingHostWithItsValueIsDropped() {
        assertThat(CliOptions.withoutOperatorHost(new String[] {"--host", "h", "run"}))
                .containsExactly("run");
        assertThat(CliOptions.withoutOperatorHost(new String[] {"run", "--host", "h"}))
                .containsExactly("run", "--host", "h");
        assertThat(CliOptions.withoutOperatorHost(new String[] {"--host"}))
                .containsExactly("--host");
        assertThatThrownBy(
                        () ->
                                AutoCdcCli.main(
                                        new String[] {"validate", "--host", "h", "--flow", flow}))
                .isInstanceOf(AutoCdcCli.CommandFailedException.class);
    }
}
