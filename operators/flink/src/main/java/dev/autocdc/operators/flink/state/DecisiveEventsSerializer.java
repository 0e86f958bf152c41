package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * An SCD1 key's decisive events ({@value StateNames#SCD1_EVENTS}; also the truncate floor's
 * broadcast state). Layout 1: {@code varint(n) event{n}}, each event as {@link StateCodec} writes
 * it.
 */
public final class DecisiveEventsSerializer extends StateValueSerializer<List<ChangeEvent>> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 1;

    public DecisiveEventsSerializer(List<ColumnType> types) {
        super(types, VERSION);
    }

    @Override
    void write(List<ChangeEvent> events, DataOutputView out) throws IOException {
        codec().writeEvents(events, out);
    }

    @Override
    List<ChangeEvent> read(DataInputView in) throws IOException {
        try {
            return codec().readEvents(in);
        } catch (IOException | RuntimeException e) {
            throw new CorruptStateException("decisive events do not decode: " + e, e);
        }
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}. */
    public static class Snapshot extends StateValueSerializer.Snapshot<List<ChangeEvent>> {
        public Snapshot() {
            super(
                    VERSION,
                    VERSION,
                    (types, version) -> new DecisiveEventsSerializer(types),
                    Map.of("DECISIVE_EVENTS", 1));
        }
    }
}
