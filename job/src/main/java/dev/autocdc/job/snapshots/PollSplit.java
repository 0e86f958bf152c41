package dev.autocdc.job.snapshots;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The one split of a {@link PolledSnapshotSource}: the version of the latest snapshot it emitted
 * (null before the first), which a checkpoint keeps.
 *
 * <p>Its bytes ({@link Serializer}, version 1): a boolean, whether a version follows; then the
 * version as Java serialization's bytes (an int length, the bytes). The versions are the JDK's
 * value types (Long, Integer, LocalDate, LocalDateTime, Instant, String), whose serial forms are
 * stable.
 */
public record PollSplit(Serializable latest) implements SourceSplit {
    static final String ID = "snapshots";

    @Override
    public String splitId() {
        return ID;
    }

    /** The split's bytes in checkpoints. */
    static final class Serializer implements SimpleVersionedSerializer<PollSplit> {
        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(PollSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeBoolean(split.latest() != null);
                if (split.latest() != null) {
                    ByteArrayOutputStream version = new ByteArrayOutputStream();
                    try (ObjectOutputStream o = new ObjectOutputStream(version)) {
                        o.writeObject(split.latest());
                    }
                    out.writeInt(version.size());
                    version.writeTo(out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public PollSplit deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("unknown version " + version + " of a snapshot poll's split");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                if (!in.readBoolean()) {
                    return new PollSplit(null);
                }
                byte[] value = new byte[in.readInt()];
                in.readFully(value);
                try (ObjectInputStream o = new ObjectInputStream(new ByteArrayInputStream(value))) {
                    return new PollSplit((Serializable) o.readObject());
                } catch (ClassNotFoundException e) {
                    throw new IOException("a snapshot version of an unknown class", e);
                }
            }
        }
    }
}
