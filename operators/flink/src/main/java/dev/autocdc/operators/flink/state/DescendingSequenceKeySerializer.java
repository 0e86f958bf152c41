package dev.autocdc.operators.flink.state;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializes a {@link SequenceKey} so that RocksDB, which orders a MapState's entries by their
 * serialized user key, iterates the newest sequence first: the escaped bytes (0x00 becomes 0x00
 * 0xFF, then a 0x00 0x00 terminator, which keeps the order and makes the form self-delimiting and
 * prefix-free) are written with every bit inverted, which reverses the order of prefix-free
 * strings. A key therefore never needs a length prefix (a length prefix would sort short keys
 * first).
 */
public final class DescendingSequenceKeySerializer extends TypeSerializer<SequenceKey> {
    private static final long serialVersionUID = 1L;
    public static final DescendingSequenceKeySerializer INSTANCE =
            new DescendingSequenceKeySerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<SequenceKey> duplicate() {
        return this;
    }

    @Override
    public SequenceKey createInstance() {
        return new SequenceKey(new byte[0]);
    }

    @Override
    public SequenceKey copy(SequenceKey from) {
        return from;
    }

    @Override
    public SequenceKey copy(SequenceKey from, SequenceKey reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(SequenceKey record, DataOutputView target) throws IOException {
        for (byte b : record.bytes()) {
            target.writeByte(~b);
            if (b == 0) {
                target.writeByte(~0xFF);
            }
        }
        target.writeByte(~0);
        target.writeByte(~0);
    }

    @Override
    public SequenceKey deserialize(DataInputView source) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16);
        while (true) {
            int b = ~source.readByte() & 0xFF;
            if (b != 0) {
                out.write(b);
                continue;
            }
            int next = ~source.readByte() & 0xFF;
            if (next == 0) {
                return new SequenceKey(out.toByteArray());
            }
            out.write(0);
        }
    }

    @Override
    public SequenceKey deserialize(SequenceKey reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DescendingSequenceKeySerializer;
    }

    @Override
    public int hashCode() {
        return DescendingSequenceKeySerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<SequenceKey> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Stateless serializer: the snapshot only records the class. */
    public static class Snapshot extends SimpleTypeSerializerSnapshot<SequenceKey> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
