package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.source.ByteReads;
import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.Table;

/**
 * A flow ready to wire: its definition, target, engine spec, input projection, and its settings.
 *
 * @param targetKind where the flow's target is written
 * @param settings the script's settings ({@code autocdc.<flow>.*}), read by the flow's name
 * @param sourceRead the read of a source the flow decodes, perhaps shared with other flows; null
 *     when the flow reads its source as declared
 */
public record PlannedFlow(
        AutoCdcFlow flow,
        FlowScript.TargetTable target,
        TargetKind targetKind,
        EngineSpec spec,
        String inputSql,
        Table input,
        FlowOptions settings,
        DataStream<DeadLetter> sourceLetters,
        ByteReads.Read sourceRead) {
    /**
     * Whether the input's last column is each record's bytes (a decoded source), which the engine's
     * input ({@link EngineSpec#inputType()}) does not have.
     */
    public boolean carriesBytes() {
        return sourceRead != null;
    }

    public TargetType type() {
        return flow.storedAs();
    }

    /** The table that receives the dead letters; null: they are logged. */
    public String deadLetterTable() {
        return settings.deadLetterTable(flow.name());
    }

    /** The table that receives the late events; null: they are logged. */
    public String lateEventsTable() {
        return settings.lateEventsTable(flow.name());
    }

    /** The table of keys to erase ({@link Erasures}); null: none. */
    public String erasuresTable() {
        return settings.erasuresTable(flow.name());
    }

    /** Whether the flow writes its target into a Flink table (else the CLI keeps or prints it). */
    public boolean writesTable() {
        return targetKind != TargetKind.KEPT_BY_CLI;
    }

    /** Where a flow's target is written. */
    public enum TargetKind {
        /** No table: the CLI keeps it ({@code --materialize}) or prints its changelog. */
        KEPT_BY_CLI,
        /** A temporary table of a connector named in {@code WITH}. */
        CONNECTOR_TABLE,
        /** A table of a catalog that makes its own tables (Paimon, Iceberg). */
        CATALOG_TABLE,
        /** Such a table, not there yet: planned without creating it (validate). */
        MISSING_CATALOG_TABLE
    }
}
