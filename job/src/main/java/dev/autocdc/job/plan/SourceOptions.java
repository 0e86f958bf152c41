package dev.autocdc.job.plan;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The settings of how a flow reads its source, {@code autocdc.<flow>.<option>} as every setting of
 * {@link FlowOptions}, which reads them.
 */
final class SourceOptions {
    private SourceOptions() {}

    /** What a source record its format cannot read becomes. */
    enum BadRecords {
        /** A dead letter with its bytes and reason (semantics §11). */
        DEAD_LETTER,
        /** The source's format as Flink runs it: the job fails (or the format's own options). */
        FAIL
    }

    static final ConfigOption<BadRecords> BAD_RECORDS =
            ConfigOptions.key("bad-records")
                    .enumType(BadRecords.class)
                    .defaultValue(BadRecords.DEAD_LETTER)
                    .withDescription(
                            "`dead_letter`: a Kafka or filesystem source is read as bytes and"
                                    + " decoded with its format by the flow, so that a record the"
                                    + " format cannot read, a blank line or an inexact number is a"
                                    + " dead letter (see [bad input](bad-input.md)); `fail`: the"
                                    + " source reads its records itself, as Flink does (a bad"
                                    + " record fails the job)");

    /** Whether a flow reads its source through a source of its own or one shared with others. */
    enum SourceRead {
        /** Shared, except where the savepoint the job restores says otherwise. */
        AUTO,
        /** Shared with every other flow of the script that reads the table and may share it. */
        SHARED,
        /** A source of the flow's own, with its own offsets. */
        OWN
    }

    static final ConfigOption<SourceRead> SOURCE =
            ConfigOptions.key("source")
                    .enumType(SourceRead.class)
                    .defaultValue(SourceRead.AUTO)
                    .withDescription(
                            "`shared`: the flows of the script that read one table as bytes"
                                + " (`bad-records` = `dead_letter`) read it through one source, so"
                                + " a Kafka topic is consumed once with one set of offsets; `own`:"
                                + " the flow reads it with a source of its own, from its own"
                                + " offsets; `auto`: shared, except that a job restoring a"
                                + " savepoint keeps each flow's source as the savepoint has it, and"
                                + " a flow added to the job reads on its own from its startup mode"
                                + " ([flows](flows.md#several-flows-from-one-table))");

    /** The values an enum option takes, as a message names them. */
    static String values(Class<? extends Enum<?>> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(e -> "'" + e.name().toLowerCase(Locale.ROOT) + "'")
                .collect(Collectors.joining(", "));
    }
}
