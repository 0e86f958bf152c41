package dev.autocdc.operators.flink.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** The column clauses, mapped once for the flow files and the SQL function alike. */
class FlowMappingTest {
    private static final List<String> SOURCE =
            List.of("id", "name", "city", "op", "seq", "recorded", "cols", "__offset");

    private static FlowMapping.Builder flow() {
        return FlowMapping.builder(SOURCE).keys(List.of("id")).sequenceBy(List.of("seq"));
    }

    @Test
    void allColumnsAreKeptInSourceOrderButTheColumnsToUpdateList() {
        FlowMapping m = flow().columnsToUpdate("cols").build();
        assertThat(m.kept())
                .as("a column named like an engine feed is data")
                .containsExactly("id", "name", "city", "op", "seq", "recorded", "__offset");
        assertThat(m.columnsToUpdate()).isEqualTo("cols");
    }

    @Test
    void columnsAndExceptChooseTheValuesAndKeysAreAlwaysKept() {
        assertThat(flow().columns(List.of("city", "name")).build().kept())
                .containsExactly("id", "name", "city");
        assertThat(
                        flow().columnsExcept(List.of("op", "SEQ", "recorded", "cols", "__offset"))
                                .build()
                                .kept())
                .containsExactly("id", "name", "city");
        assertThat(
                        FlowMapping.builder(SOURCE)
                                .keys(List.of("__offset"))
                                .sequenceBy(List.of("seq"))
                                .columns(List.of("name"))
                                .build()
                                .kept())
                .as("keys are always kept")
                .containsExactly("name", "__offset");
    }

    @Test
    void keptSequenceColumnsAreMarkedForTheEngine() {
        FlowMapping m =
                flow().sequenceBy(List.of("Seq", "recorded"))
                        .systemSequenceBy("recorded")
                        .columnsExcept(List.of("recorded"))
                        .build();
        assertThat(m.sequence()).containsExactly("seq", "recorded");
        EngineSpecProbe probe = new EngineSpecProbe();
        m.configure(probe.builder());
        EngineSpec spec = probe.spec();
        assertThat(spec.flow().isSequenceColumn(1)).as("seq").isTrue();
        assertThat(spec.flow().isSequenceColumn(2)).as("name").isFalse();
    }

    /**
     * Every clause of a definition reaches the engine spec through the one function the job and the
     * SQL function call, and every setting.
     */
    @Test
    void aDefinitionBecomesItsEngineSpec() {
        AutoCdcFlow flow =
                AutoCdcFlow.builder("users", "cdc")
                        .keys("id")
                        .sequenceBy("seq")
                        .exceptColumnList(List.of("op", "recorded", "cols"))
                        .storedAsScdType(2)
                        .trackHistoryColumnList(List.of("city"))
                        .ignoreNullUpdatesColumnList(List.of("name"))
                        .build();
        FlowMapping m = FlowMapping.of(flow, SOURCE);
        assertThat(m.kept()).containsExactly("id", "name", "city", "seq", "__offset");
        List<String> names = new ArrayList<>(m.kept());
        List<LogicalType> types = new ArrayList<>();
        for (String c : m.kept()) {
            types.add(
                    c.equals("name") || c.equals("city") ? VarCharType.STRING_TYPE : new IntType());
        }
        String prefix = ControlColumn.prefixAvoiding(SOURCE);
        names.add(ControlColumn.SEQUENCE.columnName(prefix));
        types.add(new IntType());
        RowType input = RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
        EngineSettings settings =
                new EngineSettings(Duration.ofHours(1), Duration.ofDays(30), 8, 100, null, 1, null);
        EngineSpec spec = m.engineSpec(flow, input, prefix, settings, OutputMode.UPSERT);

        assertThat(prefix).as("the source has __offset").isEqualTo("__autocdc_");
        assertThat(spec.flow().name()).isEqualTo("users");
        assertThat(spec.flow().targetType()).isEqualTo(TargetType.SCD2);
        assertThat(spec.flow().columnNames())
                .containsExactly("id", "name", "city", "seq", "__offset");
        assertThat(spec.flow().isTracked(2)).as("city").isTrue();
        assertThat(spec.flow().isTracked(1)).as("name").isFalse();
        assertThat(spec.flow().isSequenceColumn(3)).as("seq").isTrue();
        assertThat(spec.flow().ignoresNull(1)).as("name").isTrue();
        assertThat(spec.flow().ignoresNull(2)).as("city").isFalse();
        assertThat(spec.flow().hasColumnsToUpdate()).isFalse();
        assertThat(spec.outputMode()).isEqualTo(OutputMode.UPSERT);
        assertThat(spec.tombstoneRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(spec.historyRetention()).isEqualTo(Duration.ofDays(30));
        assertThat(spec.blockSize()).isEqualTo(8);
        assertThat(spec.stateCache().keys()).isEqualTo(100);
        assertThat(spec.snapshotHoldThreshold()).isNull();
    }

    @Test
    void mistakesNameTheClauseAndTheSourceColumns() {
        assertThatThrownBy(() -> flow().columns(List.of("nope")).build())
                .isInstanceOf(FlowDefinitionException.class)
                .satisfies(
                        e -> {
                            assertThat(((FlowDefinitionException) e).clause()).isEqualTo("COLUMNS");
                            assertThat(((FlowDefinitionException) e).problem())
                                    .isEqualTo(FlowMapping.UNKNOWN_COLUMN);
                            assertThat(((FlowDefinitionException) e).subject()).isEqualTo("nope");
                            assertThat(((FlowDefinitionException) e).detail())
                                    .isEqualTo(
                                            "unknown column nope; the source's columns are "
                                                    + SOURCE);
                        });
        assertThatThrownBy(() -> flow().columnsExcept(List.of("ID")).build())
                .hasMessage(
                        "COLUMNS * EXCEPT: key column id cannot be excluded: keys are always kept;"
                                + " remove it from the EXCEPT list");
        assertThatThrownBy(
                        () ->
                                flow().columns(List.of("name"))
                                        .columnsExcept(List.of("city"))
                                        .build())
                .hasMessageStartingWith(
                        "COLUMNS: give COLUMNS (list) or COLUMNS * EXCEPT (list), not both");
        assertThatThrownBy(() -> flow().systemSequenceBy("when").build())
                .hasMessageStartingWith("SYSTEM SEQUENCE BY: unknown column when");
        assertThatThrownBy(() -> FlowMapping.builder(SOURCE).keys(List.of("key")).build())
                .hasMessageStartingWith("KEYS: unknown column key");
    }

    /**
     * An engine spec over the kept columns of {@link #keptSequenceColumnsAreMarkedForTheEngine}.
     */
    private static final class EngineSpecProbe {
        private EngineSpec.Builder builder;

        EngineSpec.Builder builder() {
            LogicalType[] types = {
                new IntType(), new IntType(), VarCharType.STRING_TYPE, new IntType()
            };
            builder =
                    EngineSpec.builder(
                            "f",
                            TargetType.SCD2,
                            RowType.of(types, new String[] {"id", "seq", "name", "__seq"}));
            return builder;
        }

        EngineSpec spec() {
            return builder.build();
        }
    }
}
