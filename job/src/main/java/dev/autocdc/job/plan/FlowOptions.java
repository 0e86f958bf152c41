package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSettings;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DelegatingConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Every setting of a flow as a typed Flink option, read in this one place. A flow's settings are
 * the keys {@code autocdc.<flow>.<option>}, set with {@code SET 'key' = 'value';} in the script or
 * {@code -Dkey=value} on the command line. {@link #read} refuses a key under {@code autocdc.} that
 * names no flow of the script or no option (listing the valid ones) and a value that does not parse
 * (saying what would), so a typo fails the flow before a job starts instead of being ignored. The
 * docs' table of settings ({@code docs/flows.md}) is {@link FlowSettings#markdownTable()}, checked
 * by a test.
 */
public final class FlowOptions {
    /** The settings the engine applies, declared (with their ranges) in {@link EngineOptions}. */
    private static final List<ConfigOption<?>> ENGINE =
            List.of(
                    EngineOptions.TOMBSTONE_RETENTION,
                    EngineOptions.HISTORY_RETENTION,
                    EngineOptions.BLOCK_SIZE,
                    EngineOptions.STATE_CACHE_KEYS,
                    EngineOptions.STATE_CACHE_MEMORY,
                    EngineOptions.SNAPSHOT_HOLD_THRESHOLD);

    private final Map<String, Configuration> byFlow;
    private final Map<String, Integer> lines;

    private FlowOptions(Map<String, Configuration> byFlow, Map<String, Integer> lines) {
        this.byFlow = byFlow;
        this.lines = lines;
    }

    /**
     * Reads the settings of a script's flows from {@code conf}.
     *
     * @param flows every flow of the script
     * @param lines the script line of each key set with SET (keys set otherwise are reported
     *     without one)
     * @throws FlowSyntaxException for a key under {@code autocdc.} that names no flow or no option,
     *     or a value that does not parse
     */
    public static FlowOptions read(
            ReadableConfig conf, Collection<String> flows, Map<String, Integer> lines) {
        return read(conf, flows, lines, true);
    }

    /**
     * Reads one flow's settings (a flow planned alone, as the Java builder does): other flows' keys
     * are left alone.
     */
    public static FlowOptions readOne(
            ReadableConfig conf, String flow, Map<String, Integer> lines) {
        return read(conf, List.of(flow), lines, false);
    }

    private static FlowOptions read(
            ReadableConfig conf,
            Collection<String> flows,
            Map<String, Integer> lines,
            boolean everyFlow) {
        Map<String, String> all = conf.toMap();
        TreeSet<String> names = new TreeSet<>(flows);
        List<String> options = FlowSettings.ALL.stream().map(d -> d.option().key()).toList();
        for (String key : new TreeSet<>(all.keySet())) {
            if (!key.startsWith(TargetOptions.PREFIX)) {
                continue;
            }
            int line = lines.getOrDefault(key, 0);
            String rest = key.substring(TargetOptions.PREFIX.length());
            int dot = rest.lastIndexOf('.');
            String flow = dot < 0 ? rest : rest.substring(0, dot);
            String option = dot < 0 ? "" : rest.substring(dot + 1);
            if (!names.contains(flow) && !everyFlow) {
                continue;
            }
            if (!names.contains(flow)) {
                throw new FlowSyntaxException(
                        line,
                        where(key, line),
                        "no flow of the script is named "
                                + flow
                                + "; the flows are "
                                + names
                                + " (keys are "
                                + TargetOptions.PREFIX
                                + "<flow>.<option>)");
            }
            if (!options.contains(option)) {
                throw new FlowSyntaxException(
                        line,
                        where(key, line),
                        "a flow has no setting " + option + "; the settings are " + options);
            }
        }
        Configuration whole = Configuration.fromMap(all);
        Map<String, Configuration> byFlow = new HashMap<>();
        for (String flow : names) {
            byFlow.put(flow, new DelegatingConfiguration(whole, TargetOptions.PREFIX + flow + "."));
        }
        FlowOptions read = new FlowOptions(byFlow, Map.copyOf(lines));
        for (String flow : names) { // every value parses, or the flow fails here
            read.changelogMode(flow);
            read.tombstoneRetention(flow);
            read.historyRetention(flow);
            read.blockSize(flow);
            read.stateCacheKeys(flow);
            read.stateCacheMemory(flow);
            read.snapshotHoldThreshold(flow);
            read.decodesSource(flow);
            read.sourceRead(flow);
            read.parallelism(flow);
        }
        return read;
    }

    /** The changelog mode set for the flow; empty: the caller's default (by the target). */
    public Optional<OutputMode> changelogMode(String flow) {
        return Optional.ofNullable(value(flow, TargetOptions.CHANGELOG_MODE));
    }

    /** Null: tombstones are kept forever. */
    public Duration tombstoneRetention(String flow) {
        return retention(flow, EngineOptions.TOMBSTONE_RETENTION);
    }

    /** Null: all history is kept. */
    public Duration historyRetention(String flow) {
        return retention(flow, EngineOptions.HISTORY_RETENTION);
    }

    /** The table that receives the dead letters; null: they are logged. */
    public String deadLetterTable(String flow) {
        return value(flow, TargetOptions.DEAD_LETTER_TABLE);
    }

    /** The table that receives the late events; null: they are logged. */
    public String lateEventsTable(String flow) {
        return value(flow, TargetOptions.LATE_EVENTS_TABLE);
    }

    /** The table the flow reads keys to erase from; null: none. */
    public String erasuresTable(String flow) {
        return value(flow, TargetOptions.ERASURES_TABLE);
    }

    /** The parallelism of the flow's AUTO CDC operator; null: the job's. */
    public Integer parallelism(String flow) {
        return value(flow, TargetOptions.PARALLELISM);
    }

    public int blockSize(String flow) {
        return value(flow, EngineOptions.BLOCK_SIZE);
    }

    /** Null: as many as the cache's memory holds. */
    public Integer stateCacheKeys(String flow) {
        return value(flow, EngineOptions.STATE_CACHE_KEYS);
    }

    /** Null: from the task's memory. */
    public MemorySize stateCacheMemory(String flow) {
        return value(flow, EngineOptions.STATE_CACHE_MEMORY);
    }

    /**
     * Whether the flow decodes its source (bad records are dead letters) or reads it as declared.
     */
    public boolean decodesSource(String flow) {
        return value(flow, SourceOptions.BAD_RECORDS) == SourceOptions.BadRecords.DEAD_LETTER;
    }

    /**
     * Whether the flow reads its source on its own, shared with others, or as the savepoint says.
     */
    SourceOptions.SourceRead sourceRead(String flow) {
        return value(flow, SourceOptions.SOURCE);
    }

    /** The share of missing rows that holds a snapshot; null: off. */
    public Double snapshotHoldThreshold(String flow) {
        return value(flow, EngineOptions.SNAPSHOT_HOLD_THRESHOLD);
    }

    /** The settings of the flow that its engine applies. */
    public EngineSettings engineSettings(String flow) {
        return new EngineSettings(
                tombstoneRetention(flow),
                historyRetention(flow),
                blockSize(flow),
                stateCacheKeys(flow),
                stateCacheMemory(flow),
                byFlow.size(),
                snapshotHoldThreshold(flow));
    }

    /** A retention: a duration, or {@code forever} (also {@code none}) for no retention. */
    private Duration retention(String flow, ConfigOption<Duration> option) {
        String raw = byFlow.get(flow).toMap().get(option.key());
        boolean forever =
                raw != null
                        && (raw.trim().equalsIgnoreCase("forever")
                                || raw.trim().equalsIgnoreCase("none"));
        return forever ? null : value(flow, option);
    }

    private <T> T value(String flow, ConfigOption<T> option) {
        Configuration conf = byFlow.get(flow);
        T value;
        try {
            value = conf.get(option);
        } catch (IllegalArgumentException e) {
            value = null;
        }
        if (value == null && conf.toMap().containsKey(option.key())
                || ENGINE.contains(option) && !EngineOptions.inRange(option, value)
                || option == TargetOptions.PARALLELISM
                        && value != null
                        && ((Integer) value < 1
                                || (Integer) value > TargetOptions.MAX_PARALLELISM)) {
            throw refused(
                    flow,
                    option.key(),
                    "'" + conf.toMap().get(option.key()) + "' is not " + expected(option));
        }
        return value;
    }

    /**
     * Refuses a SET of a flow's setting that comes after the flow (the flow took its settings when
     * it was planned), except for the dead-letter and late-event tables, which are wired after the
     * whole script.
     */
    void refuseSetAfter(String flow, int flowLine) {
        for (FlowSettings.Documented d : FlowSettings.ALL) {
            String key = TargetOptions.PREFIX + flow + "." + d.option().key();
            Integer line = lines.get(key);
            if (line != null
                    && line > flowLine
                    && d.option() != TargetOptions.DEAD_LETTER_TABLE
                    && d.option() != TargetOptions.LATE_EVENTS_TABLE) {
                throw refused(
                        flow,
                        d.option().key(),
                        "comes after CREATE FLOW "
                                + flow
                                + " (line "
                                + flowLine
                                + "), which takes its settings where it is declared; move the SET"
                                + " above the flow");
            }
        }
    }

    /** An error about a setting, at its SET line, or named as given with -D (line 0). */
    private FlowSyntaxException refused(String flow, String option, String message) {
        String key = TargetOptions.PREFIX + flow + "." + option;
        int line = lines.getOrDefault(key, 0);
        return new FlowSyntaxException(line, where(key, line), message);
    }

    /** How a message names a setting: the SET statement, or the key (given with -D). */
    private static String where(String key, int line) {
        return line > 0 ? "SET '" + key + "'" : "setting " + key;
    }

    private static String expected(ConfigOption<?> option) {
        if (ENGINE.contains(option)) {
            return EngineOptions.expected(option);
        }
        if (option == TargetOptions.CHANGELOG_MODE) {
            return "'retract' or 'upsert'";
        }
        if (option == TargetOptions.PARALLELISM) {
            return "a whole number from 1 to " + TargetOptions.MAX_PARALLELISM;
        }
        if (option == SourceOptions.SOURCE) {
            return "one of " + SourceOptions.values(SourceOptions.SourceRead.class);
        }
        if (option == SourceOptions.BAD_RECORDS) {
            return "one of " + SourceOptions.values(SourceOptions.BadRecords.class);
        }
        throw new IllegalArgumentException("no values described for " + option.key());
    }
}
