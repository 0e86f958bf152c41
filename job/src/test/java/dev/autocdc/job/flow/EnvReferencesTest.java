package dev.autocdc.job.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvReferencesTest {
    @Test
    void referencesAreReplacedByTheirVariables() {
        EnvReferences r =
                EnvReferences.resolve(
                        "'user' = '${env:KAFKA_USER}', 'password' = '${env:KAFKA_PASSWORD}'",
                        Map.of("KAFKA_USER", "alice", "KAFKA_PASSWORD", "pa55word"));
        assertThat(r.text()).isEqualTo("'user' = 'alice', 'password' = 'pa55word'");
    }

    @Test
    void aDoubledDollarIsTheTextItself() {
        EnvReferences r = EnvReferences.resolve("a $${env:X} b ${env:X}", Map.of("X", "1"));
        assertThat(r.text()).isEqualTo("a ${env:X} b 1");
    }

    @Test
    void otherDollarsAreLeftAlone() {
        String sql = "SELECT '${HOME}', '$x', '${env:}', '${env:1A}'";
        assertThat(EnvReferences.resolve(sql, Map.of()).text()).isEqualTo(sql);
    }

    @Test
    void anUnsetVariableNamesTheLineAndTheFix() {
        assertThatThrownBy(
                        () ->
                                EnvReferences.resolve(
                                        "CREATE TABLE t (a INT)\nWITH ('x' = '${env:MISSING}')",
                                        Map.of()))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessage(
                        "line 2, ${env:MISSING}: the environment variable MISSING is not set; set"
                                + " it (on Kubernetes: env or envFrom of the container, from a"
                                + " Secret), or write $${env:MISSING} for the text itself");
    }

    @Test
    void redactShowsTheReferenceInPlaceOfTheValueLongestFirst() {
        EnvReferences r =
                EnvReferences.resolve(
                        "${env:A} ${env:B} ${env:EMPTY}",
                        Map.of("A", "secret", "B", "secret-longer", "EMPTY", " "));
        assertThat(r.redact("failed: secret-longer and secret, ' '"))
                .isEqualTo("failed: ${env:B} and ${env:A}, ' '");
        assertThat(r.redact(null)).isNull();
    }
}
