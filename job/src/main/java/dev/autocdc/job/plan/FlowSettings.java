package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.state.CacheBudget;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.TextElement;
import org.apache.flink.util.TimeUtils;

/**
 * Every setting a flow takes ({@link FlowOptions} reads them), in the order the docs list them,
 * with the default as the docs give it; and the docs' table of settings ({@code docs/flows.md}),
 * which a test checks against {@link #markdownTable()}.
 */
final class FlowSettings {
    private FlowSettings() {}

    /** Each option with the default as the docs give it (a computed or absent default in words). */
    record Documented(ConfigOption<?> option, String defaultText) {}

    static final List<Documented> ALL =
            List.of(
                    new Documented(
                            TargetOptions.CHANGELOG_MODE,
                            "`upsert` when the target's sink takes no `-U` rows (`upsert-kafka`,"
                                    + " `jdbc`) or its declared columns have a PRIMARY KEY, else"
                                    + " `retract`"),
                    new Documented(
                            EngineOptions.TOMBSTONE_RETENTION,
                            "`"
                                    + TimeUtils.formatWithHighestUnit(
                                            EngineOptions.TOMBSTONE_RETENTION.defaultValue())
                                    + "`"),
                    new Documented(EngineOptions.HISTORY_RETENTION, "keep all"),
                    new Documented(TargetOptions.DEAD_LETTER_TABLE, "log"),
                    new Documented(TargetOptions.LATE_EVENTS_TABLE, "log"),
                    new Documented(TargetOptions.ERASURES_TABLE, "none"),
                    new Documented(TargetOptions.PARALLELISM, "the job's"),
                    new Documented(
                            EngineOptions.BLOCK_SIZE,
                            "`" + EngineOptions.BLOCK_SIZE.defaultValue() + "`"),
                    new Documented(
                            EngineOptions.STATE_CACHE_KEYS,
                            "as many as `state-cache-memory` holds; off with TRUNCATE"),
                    new Documented(
                            EngineOptions.STATE_CACHE_MEMORY,
                            "a quarter of a slot's task heap (`taskmanager.memory.task.heap.size`"
                                    + " / `taskmanager.numberOfTaskSlots`; in a local run, half the"
                                    + " JVM's heap) divided by the job's flows, at least "
                                    + CacheBudget.MIN_BYTES / 1024
                                    + " kb"),
                    new Documented(SourceOptions.BAD_RECORDS, "`dead_letter`"),
                    new Documented(SourceOptions.SOURCE, "`auto`"),
                    new Documented(EngineOptions.SNAPSHOT_HOLD_THRESHOLD, "off"));

    /** The docs' table of settings: key, default, meaning. */
    public static String markdownTable() {
        List<String> rows = new ArrayList<>();
        rows.add("| key | default | meaning |");
        rows.add("|---|---|---|");
        for (Documented d : ALL) {
            rows.add(
                    "| `"
                            + TargetOptions.PREFIX
                            + "<flow>."
                            + d.option().key()
                            + "` | "
                            + d.defaultText()
                            + " | "
                            + ((TextElement) d.option().description().getBlocks().get(0))
                                    .getFormat()
                            + " |");
        }
        return String.join("\n", rows) + "\n";
    }
}
