package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ColumnType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The reader of serializer snapshots written by builds that had one serializer class for every
 * stored type (a content name said which), so that their savepoints restore. Nothing writes it any
 * more: each stored type has its own {@link StateValueSerializer}, whose snapshot maps the content
 * name and format read here to a layout version of its own. Those savepoints name it {@code
 * dev.autocdc.operators.flink.StateSerializer$Snapshot}, a subclass kept under that name.
 *
 * <p>Layout: {@code writeUTF(content) int(value format) int(n) writeUTF(column type){n}}.
 */
public class SingleSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {
    private String content;
    private int format;
    private List<ColumnType> types;

    /** For Flink's reflective restore. */
    public SingleSerializerSnapshot() {}

    /** What the serializer stored (a name of the old content kinds, such as TIMELINE_BLOCK). */
    String content() {
        return content;
    }

    /** The value format of {@link dev.autocdc.operators.core.StateCodec} it wrote. */
    int format() {
        return format;
    }

    List<ColumnType> types() {
        return types;
    }

    @Override
    public int getCurrentVersion() {
        return 1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        throw new UnsupportedOperationException("Old serializer snapshots are only read");
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        content = in.readUTF();
        format = in.readInt();
        int n = in.readInt();
        types = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            types.add(ColumnType.parse(in.readUTF()));
        }
    }

    /**
     * A serializer that reads the old values (the heap backend reads every value with it on
     * restore).
     */
    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<T> restoreSerializer() {
        switch (content) {
            case "DECISIVE_EVENTS":
                return (TypeSerializer<T>) new DecisiveEventsSerializer(types);
            case "TIMELINE_ENTRY":
                return (TypeSerializer<T>) new TimelineEntrySerializer(types);
            case "TIMELINE_BLOCK": // blocks, and the SCD2 recent entries of layout 1:
                // the same bytes
                return (TypeSerializer<T>) new TimelineBlockSerializer(types);
            case "RECENT_ENTRIES":
                return (TypeSerializer<T>) new RecentEntriesSerializer(types, 2);
            case "BITEMPORAL_RECENT":
                return (TypeSerializer<T>) new BitemporalRecentSerializer(types, 2);
            case "BITEMPORAL_RECENT_ENTRIES":
                return (TypeSerializer<T>) new BitemporalRecentSerializer(types, 3);
            case "BITEMPORAL_SYSTEM_HEAD":
                return (TypeSerializer<T>) new BitemporalHeadSerializer(types);
            case "BITEMPORAL_SNAPSHOT":
                return (TypeSerializer<T>) new BitemporalSnapshotSerializer(types);
            default: // the pre-release bitemporal head
                throw new IllegalStateException(
                        "State stored as "
                                + content
                                + " (a pre-release layout) cannot be read: start the flow"
                                + " without state, or from a savepoint of a released build");
        }
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
            TypeSerializerSnapshot<T> oldSnapshot) {
        // never the snapshot of a current serializer
        return TypeSerializerSchemaCompatibility.incompatible();
    }
}
