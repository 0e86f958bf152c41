package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * semantics §1: invalid combinations are rejected when the flow is defined, with a message that
 * names the clause. Every invalid flow here is a valid base flow plus exactly one offending clause,
 * so a rejection can only come from that clause.
 */
class FlowDefinitionTest {
    private static final ColumnType INT = ColumnType.of(ColumnType.Kind.INT);
    private static final ColumnType STRING = ColumnType.of(ColumnType.Kind.STRING);
    private static final ColumnType TIMESTAMP = ColumnType.of(ColumnType.Kind.TIMESTAMP);
    private static final ColumnType DOUBLE = ColumnType.of(ColumnType.Kind.DOUBLE);
    private static final ColumnType BOOLEAN = ColumnType.of(ColumnType.Kind.BOOLEAN);

    /**
     * id (key), name, city, seq (the kept SEQUENCE BY column); bitemporal adds a TIMESTAMP system
     * sequence.
     */
    private static FlowBuilder base(TargetType type) {
        FlowBuilder b =
                Flow.builder("flow", type)
                        .column("id", INT)
                        .column("name", STRING)
                        .column("city", STRING)
                        .column("seq", INT)
                        .keys("id")
                        .sequenceBy(INT)
                        .sequenceColumns("seq");
        if (type == TargetType.BITEMPORAL) {
            b.systemSequenceBy(TIMESTAMP);
        }
        return b;
    }

    private static final List<TargetType> ALL =
            List.of(TargetType.SCD1, TargetType.SCD2, TargetType.BITEMPORAL);
    private static final List<TargetType> HISTORY = List.of(TargetType.SCD2, TargetType.BITEMPORAL);

    // ------------------------------------------------------------------------------------------------
    // valid flows (so that the rejections below are due to the one clause each adds)
    // ------------------------------------------------------------------------------------------------

    @Test
    void baseFlowsAndTheirValidOptionsAreAccepted() {
        for (TargetType type : ALL) {
            assertAccepted(type, b -> {});
            assertAccepted(
                    type,
                    FlowBuilder::columnsToUpdate); // all three types (semantics §1: we allow it for
            // bitemporal)
            assertAccepted(type, FlowBuilder::ignoreNullUpdates);
            assertAccepted(type, b -> b.ignoreNullUpdatesOn(List.of("name")));
            assertAccepted(type, b -> b.ignoreNullUpdatesExcept(List.of("city")));
        }
        for (TargetType type : HISTORY) {
            assertAccepted(type, b -> b.trackHistoryOn(List.of("name")));
            assertAccepted(type, b -> b.trackHistoryExcept(List.of("city")));
            assertAccepted(type, b -> b.trackHistoryOn(List.of("name")).columnsToUpdate());
        }
    }

    @Test
    void everySortableSequenceTypeIsAccepted() {
        List<ColumnType> sortable =
                List.of(
                        ColumnType.of(ColumnType.Kind.INT),
                        ColumnType.of(ColumnType.Kind.BIGINT),
                        ColumnType.of(ColumnType.Kind.DECIMAL),
                        ColumnType.of(ColumnType.Kind.DATE),
                        TIMESTAMP,
                        ColumnType.of(ColumnType.Kind.TIMESTAMP_LTZ),
                        STRING,
                        ColumnType.row(List.of("a", "b"), List.of(TIMESTAMP, INT)));
        for (ColumnType business : sortable) {
            for (ColumnType system : sortable) {
                // semantics §1: the system sequence's type may differ from the business time's
                assertThatCode(
                                () ->
                                        Flow.builder("f", TargetType.BITEMPORAL)
                                                .column("id", INT)
                                                .column("v", STRING)
                                                .keys("id")
                                                .sequenceBy(business)
                                                .systemSequenceBy(system)
                                                .build())
                        .as(business + " / " + system)
                        .doesNotThrowAnyException();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // semantics §1's invalid combinations
    // ------------------------------------------------------------------------------------------------

    @Test
    void systemSequenceByWithoutBitemporalIsRejected() {
        for (TargetType type : List.of(TargetType.SCD1, TargetType.SCD2)) {
            FlowDefinitionException e = rejected(type, b -> b.systemSequenceBy(TIMESTAMP));
            assertThat(e.clause()).as(type.toString()).isEqualTo("SYSTEM SEQUENCE BY");
        }
    }

    @Test
    void bitemporalWithoutSystemSequenceByIsRejected() {
        FlowBuilder b =
                Flow.builder("flow", TargetType.BITEMPORAL)
                        .column("id", INT)
                        .column("name", STRING)
                        .keys("id")
                        .sequenceBy(INT);
        FlowDefinitionException e = rejected(b);
        assertThat(e.clause()).isIn("STORED AS BITEMPORAL", "SYSTEM SEQUENCE BY");
        assertThat(e.getMessage()).contains("SYSTEM SEQUENCE BY");
    }

    @Test
    void trackHistoryWithScdType1IsRejected() {
        assertThat(rejected(TargetType.SCD1, b -> b.trackHistoryOn(List.of("name"))).clause())
                .startsWith("TRACK HISTORY");
        assertThat(rejected(TargetType.SCD1, b -> b.trackHistoryExcept(List.of("city"))).clause())
                .startsWith("TRACK HISTORY");
    }

    @Test
    void columnsToUpdateWithIgnoreNullUpdatesIsRejected() {
        List<Consumer<FlowBuilder>> ignoreForms =
                List.of(
                        FlowBuilder::ignoreNullUpdates,
                        b -> b.ignoreNullUpdatesOn(List.of("name")),
                        b -> b.ignoreNullUpdatesExcept(List.of("city")));
        for (TargetType type : ALL) {
            for (Consumer<FlowBuilder> ignore : ignoreForms) {
                FlowDefinitionException e =
                        rejected(
                                type,
                                b -> {
                                    ignore.accept(b);
                                    b.columnsToUpdate();
                                });
                assertThat(e.clause())
                        .as(type.toString())
                        .isIn("COLUMNS TO UPDATE", "IGNORE NULL UPDATES");
                assertThat(e.getMessage())
                        .contains("COLUMNS TO UPDATE")
                        .contains("IGNORE NULL UPDATES");
            }
        }
    }

    @Test
    void anUnknownColumnIsRejectedByTheClauseThatNamesIt() {
        for (TargetType type : ALL) {
            assertUnknown(
                    rejected(
                            Flow.builder("flow", type)
                                    .column("id", INT)
                                    .column("name", STRING)
                                    .keys("nope")
                                    .sequenceBy(INT)
                                    .systemSequenceBy(
                                            type == TargetType.BITEMPORAL ? TIMESTAMP : null)),
                    "KEYS");
            assertUnknown(rejected(type, b -> b.sequenceColumns("nope")), "SEQUENCE BY");
            assertUnknown(
                    rejected(type, b -> b.ignoreNullUpdatesOn(List.of("name", "nope"))),
                    "IGNORE NULL UPDATES");
            assertUnknown(
                    rejected(type, b -> b.ignoreNullUpdatesExcept(List.of("nope"))),
                    "IGNORE NULL UPDATES");
        }
        for (TargetType type : HISTORY) {
            assertUnknown(rejected(type, b -> b.trackHistoryOn(List.of("nope"))), "TRACK HISTORY");
            assertUnknown(
                    rejected(type, b -> b.trackHistoryExcept(List.of("city", "nope"))),
                    "TRACK HISTORY");
        }
    }

    @Test
    void aKeyInAnExceptListIsRejected() {
        for (TargetType type : ALL) {
            FlowDefinitionException e =
                    rejected(type, b -> b.ignoreNullUpdatesExcept(List.of("id")));
            assertThat(e.clause()).startsWith("IGNORE NULL UPDATES");
            assertThat(e.getMessage()).contains("id");
            // names are case-insensitive, as everywhere in the builder
            assertThat(rejected(type, b -> b.ignoreNullUpdatesExcept(List.of("ID"))).clause())
                    .startsWith("IGNORE NULL UPDATES");
        }
        for (TargetType type : HISTORY) {
            FlowDefinitionException e = rejected(type, b -> b.trackHistoryExcept(List.of("id")));
            assertThat(e.clause()).startsWith("TRACK HISTORY");
            assertThat(e.getMessage()).contains("id");
            assertThat(rejected(type, b -> b.trackHistoryExcept(List.of("city", "Id"))).clause())
                    .startsWith("TRACK HISTORY");
        }
    }

    /** Keys are always kept and never tracked, so listing one in an ON list is rejected too. */
    @Test
    void aKeyInAnOnListIsRejected() {
        for (TargetType type : ALL) {
            assertThat(rejected(type, b -> b.ignoreNullUpdatesOn(List.of("id"))).clause())
                    .startsWith("IGNORE NULL UPDATES");
        }
        for (TargetType type : HISTORY) {
            assertThat(rejected(type, b -> b.trackHistoryOn(List.of("id"))).clause())
                    .startsWith("TRACK HISTORY");
        }
    }

    @Test
    void aNonSortableSequenceTypeIsRejected() {
        List<ColumnType> unsortable =
                List.of(
                        DOUBLE,
                        BOOLEAN,
                        ColumnType.of(ColumnType.Kind.FLOAT),
                        ColumnType.of(ColumnType.Kind.BYTES),
                        ColumnType.array(INT),
                        ColumnType.row(List.of("a", "b"), List.of(INT, DOUBLE)),
                        ColumnType.row(List.of(), List.of()));
        for (ColumnType bad : unsortable) {
            for (TargetType type : ALL) {
                FlowDefinitionException e = rejected(type, b -> b.sequenceBy(bad));
                assertThat(e.clause()).as(type + " SEQUENCE BY " + bad).isEqualTo("SEQUENCE BY");
            }
            FlowDefinitionException e =
                    rejected(TargetType.BITEMPORAL, b -> b.systemSequenceBy(bad));
            assertThat(e.clause()).as("SYSTEM SEQUENCE BY " + bad).isEqualTo("SYSTEM SEQUENCE BY");
        }
    }

    @Test
    void noKeysIsRejected() {
        for (TargetType type : ALL) {
            FlowBuilder b =
                    Flow.builder("flow", type)
                            .column("id", INT)
                            .column("name", STRING)
                            .sequenceBy(INT);
            if (type == TargetType.BITEMPORAL) {
                b.systemSequenceBy(TIMESTAMP);
            }
            assertThat(rejected(b).clause()).as(type.toString()).isEqualTo("KEYS");
            assertThat(
                            rejected(
                                            Flow.builder("flow", type)
                                                    .column("id", INT)
                                                    .keys(List.of())
                                                    .sequenceBy(INT)
                                                    .systemSequenceBy(
                                                            type == TargetType.BITEMPORAL
                                                                    ? TIMESTAMP
                                                                    : null))
                                    .clause())
                    .isEqualTo("KEYS");
        }
    }

    @Test
    void noSequenceByIsRejected() {
        for (TargetType type : ALL) {
            FlowBuilder b =
                    Flow.builder("flow", type).column("id", INT).column("name", STRING).keys("id");
            if (type == TargetType.BITEMPORAL) {
                b.systemSequenceBy(TIMESTAMP);
            }
            assertThat(rejected(b).clause()).as(type.toString()).isEqualTo("SEQUENCE BY");
        }
    }

    /** Further contradictions the builder rejects, each naming its clause. */
    @Test
    void otherContradictionsAreRejected() {
        for (TargetType type : ALL) {
            assertThat(rejected(type, b -> b.keys("id")).clause())
                    .as("key listed twice")
                    .isEqualTo("KEYS");
            assertThat(rejected(type, b -> b.column("NAME", STRING)).clause())
                    .as("column twice")
                    .isEqualTo("COLUMNS");
            assertThat(rejected(type, b -> b.sequenceColumns("id")).clause())
                    .as("key as sequence")
                    .isEqualTo("SEQUENCE BY");
            assertThat(
                            rejected(
                                            type,
                                            b ->
                                                    b.ignoreNullUpdates()
                                                            .ignoreNullUpdatesOn(List.of("name")))
                                    .clause())
                    .as("two IGNORE NULL UPDATES forms")
                    .startsWith("IGNORE NULL UPDATES");
        }
        for (TargetType type : HISTORY) {
            assertThat(
                            rejected(
                                            type,
                                            b ->
                                                    b.trackHistoryOn(List.of("name"))
                                                            .trackHistoryExcept(List.of("city")))
                                    .clause())
                    .as("two TRACK HISTORY forms")
                    .startsWith("TRACK HISTORY");
        }
    }

    /** semantics §1: APPLY AS TRUNCATE WHEN is for SCD type 1 only. */
    @Test
    void truncateWithHistoryTargetsIsRejected() {
        assertAccepted(TargetType.SCD1, FlowBuilder::applyAsTruncate);
        for (TargetType type : HISTORY) {
            assertThat(rejected(type, FlowBuilder::applyAsTruncate).clause())
                    .as(type.toString())
                    .isEqualTo("APPLY AS TRUNCATE WHEN");
        }
    }

    // ------------------------------------------------------------------------------------------------

    private static void assertAccepted(TargetType type, Consumer<FlowBuilder> option) {
        FlowBuilder b = base(type);
        option.accept(b);
        assertThatCode(b::build).as(type.toString()).doesNotThrowAnyException();
    }

    /**
     * The base flow of the type plus one option: must be rejected (and the base alone must be
     * valid).
     */
    private static FlowDefinitionException rejected(TargetType type, Consumer<FlowBuilder> option) {
        assertThatCode(() -> base(type).build()).as("base " + type).doesNotThrowAnyException();
        FlowBuilder b = base(type);
        option.accept(b);
        return rejected(b);
    }

    private static FlowDefinitionException rejected(FlowBuilder b) {
        FlowDefinitionException[] caught = new FlowDefinitionException[1];
        assertThatThrownBy(b::build)
                .isInstanceOfSatisfying(FlowDefinitionException.class, e -> caught[0] = e);
        FlowDefinitionException e = caught[0];
        assertThat(e.clause()).isNotBlank();
        assertThat(e.getMessage()).as("the message names the clause").contains(e.clause());
        return e;
    }

    private static void assertUnknown(FlowDefinitionException e, String clausePrefix) {
        assertThat(e.clause()).startsWith(clausePrefix);
        assertThat(e.getMessage()).contains("nope");
    }
}
