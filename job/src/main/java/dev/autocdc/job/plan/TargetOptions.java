package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.spec.OutputMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The settings of where a flow writes and how many subtasks it runs, {@code
 * autocdc.<flow>.<option>} as every setting of {@link FlowOptions}, which reads them (the engine's
 * are {@code EngineOptions}, the source's {@link SourceOptions}).
 */
public final class TargetOptions {
    private TargetOptions() {}

    /** The prefix of every flow setting: {@code autocdc.<flow>.<option>}. */
    public static final String PREFIX = "autocdc.";

    public static final ConfigOption<OutputMode> CHANGELOG_MODE =
            ConfigOptions.key("changelog-mode")
                    .enumType(OutputMode.class)
                    .noDefaultValue()
                    .withDescription(
                            "`upsert` emits no `-U` rows and declares the target's primary key (for"
                                + " upsert sinks); `retract` emits `-U`/`+U` and declares no key"
                                + " (for `kafka` with a changelog format such as `debezium-json`,"
                                + " `print`, ...)");
    public static final ConfigOption<String> DEAD_LETTER_TABLE =
            ConfigOptions.key("dead-letter-table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "a declared table (columns `flow, source, reason, message, payload"
                                + " STRING, topic STRING, partition INT, offset BIGINT, raw_record"
                                + " BYTES` (`partition` and `offset` in backticks: reserved words),"
                                + " by position; checked when the flow is planned) that receives"
                                + " the dead letters");
    public static final ConfigOption<String> LATE_EVENTS_TABLE =
            ConfigOptions.key("late-events-table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("the same for events refused by a retention");

    /** The most subtasks of an operator Flink runs (its largest maximum parallelism). */
    static final int MAX_PARALLELISM = 32_768;

    public static final ConfigOption<Integer> PARALLELISM =
            ConfigOptions.key("parallelism")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "the subtasks of the flow's AUTO CDC operator, which holds its keyed"
                                    + " state and does the work per key, 1 to "
                                    + MAX_PARALLELISM
                                    + " (and at most the job's maximum parallelism, checked when"
                                    + " the job is submitted); the target's sink runs at the same"
                                    + " unless its own `sink.parallelism` says otherwise, the"
                                    + " source and the decoding step at the job's. A restore may"
                                    + " change it, as a rescale of these operators does"
                                    + " ([reliability](reliability.md))");

    public static final ConfigOption<String> ERASURES_TABLE =
            ConfigOptions.key("erasures-table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "a declared table (say a Kafka topic) whose rows name keys to erase, by"
                                    + " the flow's key columns: each row deletes every row of its"
                                    + " key from the target and clears its state"
                                    + " ([operations](operations.md#erase-a-key)); set it before"
                                    + " the flow");
}
