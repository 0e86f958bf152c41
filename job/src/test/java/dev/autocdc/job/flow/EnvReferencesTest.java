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
                        "${env:A} ${env:B} ${env:SHORT}",
                        Map.of("A", "secret", "B", "secret-longer", "SHORT", "on"));
        // values under 4 characters are no secrets: "on" stays, in "on" and everywhere
        assertThat(r.redact("failed: secret-longer and secret, on"))
                .isEqualTo("failed: ${env:B} and ${env:A}, on");
        assertThat(r.redact(null)).isNull();
    }

    @Test
    void insideAStringAQuoteInTheValueIsDoubledAndBothFormsAreRedacted() {
        String sql =
                "-- it's a comment with a quote\n"
                        + "WITH ('password' = '${env:P}', `odd'name` = ${env:N}) /* ' */ ${env:P}";
        EnvReferences r = EnvReferences.resolve(sql, Map.of("P", "it's-me", "N", "42"));
        assertThat(r.text())
                .isEqualTo(
                        "-- it's a comment with a quote\n"
                            + "WITH ('password' = 'it''s-me', `odd'name` = 42) /* ' */ it's-me");
        assertThat(r.redact("near 'it''s-me' and it's-me"))
                .isEqualTo("near '${env:P}' and ${env:P}");
    }
}
