package dev.autocdc.udfs;

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

/**
 * {@code AUTO_CDC_UPSERT}: {@link AutoCdcTableFunction AUTO_CDC} for SCD type 1 targets written to
 * upsert sinks (upsert-kafka, JDBC with a primary key, ...). When the consumer takes upserts, the
 * function emits {@code +I}, {@code +U} and full-row {@code -D} keyed by the PARTITION BY columns
 * (Flink's {@code upsert(false)} mode), without the {@code -U} rows the sink would drop anyway;
 * when it does not, it emits retract mode like AUTO_CDC. Type 2 and bitemporal targets are refused
 * at planning time: their rows are keyed by the key and {@code __START_AT} (and {@code
 * __SYSTEM_START_AT}), not by the PARTITION BY columns alone, so they stay in retract mode (use
 * AUTO_CDC).
 *
 * <p>A separate function because Flink 2.2 asks a function for its changelog mode without its
 * arguments: {@code stored_as} cannot decide it.
 */
public class AutoCdcUpsertTableFunction extends AutoCdcTableFunction {
    private static final long serialVersionUID = 1L;

    @Override
    String name() {
        return "AUTO_CDC_UPSERT";
    }

    @Override
    boolean upsertWhenPossible() {
        return true;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogContext context) {
        if (context.getRequiredChangelogMode().contains(RowKind.UPDATE_BEFORE)) {
            return ChangelogMode.all();
        }
        return ChangelogMode.upsert(false);
    }
}
