package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.table.types.logical.RowType;

/**
 * The one mapping from a flow's clauses to the engine, for every way a flow is written (the job's
 * flow files and Java builder, the SQL function {@code AUTO_CDC}'s arguments, each an {@link
 * AutoCdcFlow}): which source columns the target keeps, which of those hold the sequences ({@link
 * #of}), and the engine spec of the whole flow ({@link #engineSpec}).
 *
 * <ul>
 *   <li>The target keeps the columns of COLUMNS (list), or every column but those of COLUMNS *
 *       EXCEPT (list), in source order; the keys always (naming a key in EXCEPT is an error); never
 *       the COLUMNS TO UPDATE column (even a key). Every source column is data, whatever its name
 *       or kind (a metadata column too).
 *   <li>A flow from snapshots leaves the SEQUENCE BY and SYSTEM SEQUENCE BY columns out unless
 *       COLUMNS (list) names them ({@link Builder#snapshot}), and so the source's columns that time
 *       its snapshots, such as a watermark's ({@link Builder#snapshotTimes}).
 *   <li>A kept SEQUENCE BY or SYSTEM SEQUENCE BY column is marked a sequence column: it takes each
 *       event's value and is never tracked (semantics §4).
 *   <li>A name refers to the source column of the same name, or else of the same name ignoring
 *       case.
 * </ul>
 *
 * A mistake is a {@link FlowDefinitionException} naming the clause as the flow language spells it,
 * with a problem code for front ends that word it their own way; each turns it into its own error
 * (a line of the flow file, an argument of the call).
 */
public final class FlowMapping {
    /** {@link FlowDefinitionException#problem()}: a name is no source column (its subject). */
    public static final String UNKNOWN_COLUMN = "unknown column";

    /** {@link FlowDefinitionException#problem()}: COLUMNS * EXCEPT names a key (its subject). */
    public static final String KEY_EXCLUDED = "key excluded";

    /**
     * {@link FlowDefinitionException#problem()}: both COLUMNS (list) and COLUMNS * EXCEPT (list).
     */
    public static final String BOTH_COLUMN_LISTS = "both column lists";

    private final List<String> keys;
    private final List<String> sequence;
    private final String systemSequence;
    private final String columnsToUpdate;
    private final List<String> kept;
    private final List<String> keptSequenceColumns;

    private FlowMapping(Builder b) {
        List<String> source = b.source;
        keys = resolveAll(source, b.keys, "KEYS");
        sequence = resolveAll(source, b.sequenceBy, "SEQUENCE BY");
        systemSequence =
                b.systemSequenceBy == null
                        ? null
                        : resolve(source, b.systemSequenceBy, "SYSTEM SEQUENCE BY");
        columnsToUpdate =
                b.columnsToUpdate == null
                        ? null
                        : resolve(source, b.columnsToUpdate, "COLUMNS TO UPDATE");
        if (b.columns != null && b.columnsExcept != null) {
            throw new FlowDefinitionException(
                    "COLUMNS",
                    "give COLUMNS (list) or COLUMNS * EXCEPT (list), not both",
                    BOTH_COLUMN_LISTS,
                    null);
        }
        Set<String> listed =
                b.columns == null
                        ? null
                        : new LinkedHashSet<>(resolveAll(source, b.columns, "COLUMNS"));
        Set<String> excepted = new LinkedHashSet<>();
        if (b.snapshot && listed == null) {
            // a kept version column would rewrite every row at every snapshot (semantics §10)
            excepted.addAll(sequence);
            if (systemSequence != null) {
                excepted.add(systemSequence);
            }
            excepted.addAll(b.snapshotTimes);
            excepted.removeAll(keys);
        }
        if (b.columnsExcept != null) {
            for (String name : resolveAll(source, b.columnsExcept, "COLUMNS * EXCEPT")) {
                if (keys.contains(name)) {
                    throw new FlowDefinitionException(
                            "COLUMNS * EXCEPT",
                            "key column "
                                    + name
                                    + " cannot be excluded: keys are always kept; remove it from"
                                    + " the EXCEPT list",
                            KEY_EXCLUDED,
                            name);
                }
                excepted.add(name);
            }
        }
        List<String> target = new ArrayList<>();
        for (String c : source) {
            boolean key = keys.contains(c);
            boolean keep = key || (listed == null ? !excepted.contains(c) : listed.contains(c));
            if (keep && !c.equals(columnsToUpdate)) {
                target.add(c);
            }
        }
        kept = List.copyOf(target);
        List<String> marked = new ArrayList<>();
        for (String s : sequence) {
            if (kept.contains(s)) {
                marked.add(s);
            }
        }
        if (systemSequence != null && kept.contains(systemSequence)) {
            marked.add(systemSequence);
        }
        keptSequenceColumns = List.copyOf(marked);
    }

    /** The mapping of {@code flow}'s column clauses over a source of {@code sourceColumns}. */
    public static FlowMapping of(AutoCdcFlow flow, List<String> sourceColumns) {
        return of(flow, sourceColumns, List.of());
    }

    /**
     * The mapping of {@code flow}'s column clauses over a source of {@code sourceColumns}, of which
     * {@code snapshotTimes} time the snapshots of a flow from snapshots ({@link
     * Builder#snapshotTimes}).
     */
    public static FlowMapping of(
            AutoCdcFlow flow, List<String> sourceColumns, List<String> snapshotTimes) {
        return builder(sourceColumns)
                .snapshotTimes(snapshotTimes)
                .keys(flow.keys())
                .sequenceBy(flow.sequenceBy())
                .systemSequenceBy(flow.systemSequenceBy())
                .columnsToUpdate(flow.columnsToUpdate())
                .columns(flow.columnList())
                .columnsExcept(flow.exceptColumnList())
                .snapshot(flow.fromSnapshot())
                .build();
    }

    /**
     * The engine spec of {@code flow}, whose columns this maps, over {@code input} (the kept
     * columns, then the control columns under {@code controlPrefix}): the one place where a flow's
     * clauses and settings reach the engine, for the job's flows and the SQL function alike.
     *
     * @throws FlowDefinitionException naming the clause of a definition the engine refuses
     */
    public EngineSpec engineSpec(
            AutoCdcFlow flow,
            RowType input,
            String controlPrefix,
            EngineSettings settings,
            OutputMode mode) {
        EngineSpec.Builder b =
                configure(EngineSpec.builder(flow.name(), flow.storedAs(), input))
                        .controlPrefix(controlPrefix)
                        .outputMode(mode);
        if (flow.fromSnapshot()) {
            b.fromSnapshot();
        }
        if (flow.ignoreNullUpdates()) {
            b.ignoreNullUpdates();
        }
        if (flow.ignoreNullUpdatesColumnList() != null) {
            b.ignoreNullUpdatesOn(flow.ignoreNullUpdatesColumnList());
        }
        if (flow.ignoreNullUpdatesExceptColumnList() != null) {
            b.ignoreNullUpdatesExcept(flow.ignoreNullUpdatesExceptColumnList());
        }
        if (flow.trackHistoryColumnList() != null) {
            b.trackHistoryOn(flow.trackHistoryColumnList());
        }
        if (flow.trackHistoryExceptColumnList() != null) {
            b.trackHistoryExcept(flow.trackHistoryExceptColumnList());
        }
        if (flow.columnsToUpdate() != null) {
            b.columnsToUpdate();
        }
        return b.tombstoneRetention(settings.tombstoneRetention())
                .historyRetention(settings.historyRetention())
                .blockSize(settings.blockSize())
                .stateCacheKeys(settings.stateCacheKeys())
                .stateCacheMemory(settings.stateCacheMemory())
                .stateCacheShares(settings.stateCacheShares())
                .snapshotHoldThreshold(settings.snapshotHoldThreshold())
                .build();
    }

    /**
     * @param sourceColumns the source's column names, in order
     */
    public static Builder builder(List<String> sourceColumns) {
        return new Builder(sourceColumns);
    }

    /** The key columns, as the source spells them. */
    public List<String> keys() {
        return keys;
    }

    /** The SEQUENCE BY columns (more than one: a STRUCT, ordered field by field). */
    public List<String> sequence() {
        return sequence;
    }

    /** The SYSTEM SEQUENCE BY column; null when none. */
    public String systemSequence() {
        return systemSequence;
    }

    /** The COLUMNS TO UPDATE column; null when none. */
    public String columnsToUpdate() {
        return columnsToUpdate;
    }

    /** The target's base columns (keys and values), in source order. */
    public List<String> kept() {
        return kept;
    }

    /**
     * Sets the keys and the kept sequence columns of an engine spec (whose input holds the kept
     * columns).
     */
    EngineSpec.Builder configure(EngineSpec.Builder spec) {
        return spec.keys(keys).sequenceColumns(keptSequenceColumns);
    }

    /**
     * The source column a name refers to, or a {@link FlowDefinitionException} naming the clause.
     */
    public static String resolve(List<String> source, String name, String clause) {
        // as written first (a quoted name may have spaces), then without surrounding spaces
        for (String n : List.of(name, name.trim())) {
            for (String c : source) {
                if (c.equals(n)) {
                    return c;
                }
            }
            for (String c : source) {
                if (c.toLowerCase(Locale.ROOT).equals(n.toLowerCase(Locale.ROOT))) {
                    return c;
                }
            }
        }
        String n = name.trim();
        throw new FlowDefinitionException(
                clause,
                "unknown column " + n + "; the source's columns are " + source,
                UNKNOWN_COLUMN,
                n);
    }

    private static List<String> resolveAll(
            List<String> source, Collection<String> names, String clause) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            out.add(resolve(source, n, clause));
        }
        return out;
    }

    /** The clauses of a flow that choose columns, names as written. */
    public static final class Builder {
        private final List<String> source;
        private List<String> keys = List.of();
        private List<String> sequenceBy = List.of();
        private String systemSequenceBy;
        private String columnsToUpdate;
        private List<String> columns;
        private List<String> columnsExcept;
        private boolean snapshot;
        private List<String> snapshotTimes = List.of();

        private Builder(List<String> source) {
            this.source = List.copyOf(source);
        }

        public Builder keys(List<String> names) {
            this.keys = List.copyOf(names);
            return this;
        }

        public Builder sequenceBy(List<String> names) {
            this.sequenceBy = List.copyOf(names);
            return this;
        }

        public Builder systemSequenceBy(String name) {
            this.systemSequenceBy = name;
            return this;
        }

        public Builder columnsToUpdate(String name) {
            this.columnsToUpdate = name;
            return this;
        }

        /** COLUMNS (list); null: all columns. */
        public Builder columns(List<String> names) {
            this.columns = names == null ? null : List.copyOf(names);
            return this;
        }

        /**
         * A flow from snapshots (semantics §10): unless COLUMNS (list) names them, the SEQUENCE BY
         * and SYSTEM SEQUENCE BY columns are left out of the target (naming them in COLUMNS *
         * EXCEPT is accepted too).
         */
        public Builder snapshot(boolean fromSnapshot) {
            this.snapshot = fromSnapshot;
            return this;
        }

        /**
         * Source columns that time the snapshots of a flow from snapshots, as the version does (a
         * watermark's time column): left out of the target with the version.
         */
        public Builder snapshotTimes(List<String> columns) {
            this.snapshotTimes = List.copyOf(columns);
            return this;
        }

        /** COLUMNS * EXCEPT (list); null: no exceptions. */
        public Builder columnsExcept(List<String> names) {
            this.columnsExcept = names == null ? null : List.copyOf(names);
            return this;
        }

        /**
         * @throws FlowDefinitionException naming the clause
         */
        public FlowMapping build() {
            return new FlowMapping(this);
        }
    }
}
