package dev.autocdc.operators.flink.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
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
