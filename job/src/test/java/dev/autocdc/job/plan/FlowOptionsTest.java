package dev.autocdc.job.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

/**
 * The flows' settings: typed, with defaults, refusing what names no flow or no setting, and
 * documented as they are.
 */
class FlowOptionsTest {

    private static Configuration conf(Map<String, String> settings) {
        return Configuration.fromMap(settings);
    }

    @Test
    void defaultsAndTypedValues() {
        FlowOptions none = FlowOptions.read(conf(Map.of()), List.of("f"), Map.of());
        assertThat(none.changelogMode("f")).isEmpty();
        assertThat(none.tombstoneRetention("f")).isEqualTo(Duration.ofDays(2));
        assertThat(none.historyRetention("f")).isNull();
        assertThat(none.deadLetterTable("f")).isNull();
        assertThat(none.blockSize("f")).isEqualTo(4);
        FlowOptions set =
                FlowOptions.read(
                        conf(
                                Map.of(
                                        "autocdc.f.changelog-mode",
                                        "UPSERT",
                                        "autocdc.f.tombstone-retention",
                                        "forever",
                                        "autocdc.f.history-retention",
                                        "30 d",
                                        "autocdc.f.dead-letter-table",
                                        "dl",
                                        "autocdc.f.block-size",
                                        "8",
                                        "parallelism.default",
                                        "2")),
                        List.of("f"),
                        Map.of());
        assertThat(set.changelogMode("f")).contains(OutputMode.UPSERT);
        assertThat(set.tombstoneRetention("f")).isNull();
        assertThat(set.historyRetention("f")).isEqualTo(Duration.ofDays(30));
        assertThat(set.deadLetterTable("f")).isEqualTo("dl");
        assertThat(set.blockSize("f")).isEqualTo(8);
    }

    @Test
    void unknownFlowsSettingsAndValuesAreRefusedListingTheValidOnes() {
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(
                                                Map.of(
                                                        "autocdc.apply_cdx.tombstone-retention",
                                                        "1 d")),
                                        List.of("apply_cdc", "other"),
                                        Map.of("autocdc.apply_cdx.tombstone-retention", 4)))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessage(
                        "line 4, SET 'autocdc.apply_cdx.tombstone-retention': no flow of the script"
                                + " is named apply_cdx; the flows are [apply_cdc, other] (keys are"
                                + " autocdc.<flow>.<option>)");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.tombstone-retension", "1 d")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessage(
                        "setting autocdc.f.tombstone-retension: a flow has no setting"
                                + " tombstone-retension; the settings are [changelog-mode,"
                                + " tombstone-retention, history-retention, dead-letter-table,"
                                + " late-events-table, erasures-table, parallelism, block-size,"
                                + " state-cache-keys, state-cache-memory, bad-records, source,"
                                + " snapshot-hold-threshold]");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.changelog-mode", "append")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessageContaining("'append' is not 'retract' or 'upsert'");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.history-retention", "soon")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessageContaining(
                        "'soon' is not a positive duration; write for example '2 d', '12 h' or"
                                + " 'forever'");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.block-size", "four")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessageContaining("'four' is not a whole number from 1 to 1024");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.block-size", "0")),
                                        List.of("f"),
                                        Map.of("autocdc.f.block-size", 7)))
                .hasMessage(
                        "line 7, SET 'autocdc.f.block-size': '0' is not a whole number from 1 to"
                                + " 1024");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.state-cache-keys", "-1")),
                                        List.of("f"),
                                        Map.of("autocdc.f.state-cache-keys", 3)))
                .hasMessage(
                        "line 3, SET 'autocdc.f.state-cache-keys': '-1' is not a whole number from"
                                + " 0 (off) to 10000000");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.tombstone-retention", "0 s")),
                                        List.of("f"),
                                        Map.of("autocdc.f.tombstone-retention", 2)))
                .as("ranges are EngineOptions', checked at the SET line")
                .hasMessage(
                        "line 2, SET 'autocdc.f.tombstone-retention': '0 s' is not a positive"
                                + " duration; write for example '2 d', '12 h' or 'forever'");
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.snapshot-hold-threshold", "1.5")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessage(
                        "setting autocdc.f.snapshot-hold-threshold: '1.5' is not a share between 0"
                                + " and 1, such as 0.2");
        assertThat(
                        FlowOptions.read(
                                        conf(Map.of("autocdc.f.state-cache-keys", "50000")),
                                        List.of("f"),
                                        Map.of())
                                .stateCacheKeys("f"))
                .isEqualTo(50_000);
        assertThat(
                        FlowOptions.read(
                                        conf(Map.of("autocdc.f.state-cache-memory", "48 mb")),
                                        List.of("f"),
                                        Map.of())
                                .stateCacheMemory("f"))
                .isEqualTo(MemorySize.ofMebiBytes(48));
        assertThatThrownBy(
                        () ->
                                FlowOptions.read(
                                        conf(Map.of("autocdc.f.state-cache-memory", "1 kb")),
                                        List.of("f"),
                                        Map.of()))
                .hasMessage(
                        "setting autocdc.f.state-cache-memory: '1 kb' is not a memory size of at"
                                + " least 64 kb, such as '64 mb'");
        assertThat(
                        FlowOptions.readOne(conf(Map.of("autocdc.g.whatever", "x")), "f", Map.of())
                                .blockSize("f"))
                .as("a flow planned alone leaves other flows' keys alone")
                .isEqualTo(4);
    }

    @Test
    void theDocsTableIsTheOptions() throws Exception {
        String docs = Files.readString(Path.of("../docs/flows.md"), StandardCharsets.UTF_8);
        assertThat(docs).contains(FlowSettings.markdownTable());
    }
}
