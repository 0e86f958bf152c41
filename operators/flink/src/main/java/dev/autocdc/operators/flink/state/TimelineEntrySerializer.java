package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TimelineEntry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * One timeline entry as a state value: the value of the pre-release state names ({@value
 * StateNames#LEGACY_SCD2_HEAD}, {@value StateNames#LEGACY_SCD2_TIMELINE}), which today's build
 * registers only so that restoring a savepoint of format 1 fails (its serializer refuses it)
 * instead of starting every key without its history. Layout 1: the entry as {@link
 * StateCodec#writeEntry} writes it.
 */
public final class TimelineEntrySerializer extends StateValueSerializer<TimelineEntry> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 1;

    public TimelineEntrySerializer(List<ColumnType> types) {
        super(types, VERSION);
    }

    @Override
    void write(TimelineEntry entry, DataOutputView out) throws IOException {
        codec().writeEntry(entry, out);
    }

    @Override
    TimelineEntry read(DataInputView in) throws IOException {
        try {
            return codec().readEntry(in);
        } catch (IOException | RuntimeException e) {
            throw new CorruptStateException("a timeline entry does not decode: " + e, e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}. */
    public static class Snapshot extends StateValueSerializer.Snapshot<TimelineEntry> {
        public Snapshot() {
            super(
                    VERSION,
                    VERSION,
                    (types, version) -> new TimelineEntrySerializer(types),
                    Map.of("TIMELINE_ENTRY", 1));
        }
    }
}
