package dev.autocdc.job.snapshots;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Hands the one {@link PollSplit} to reader 0, and takes it back when that reader fails (its state
 * then is the split as of the checkpoint restored). Its checkpointed state is the split while no
 * reader holds it: an empty list once assigned.
 */
final class PollEnumerator implements SplitEnumerator<PollSplit, List<PollSplit>> {
    private final SplitEnumeratorContext<PollSplit> context;
    private final List<PollSplit> unassigned;

    PollEnumerator(SplitEnumeratorContext<PollSplit> context, List<PollSplit> unassigned) {
        this.context = context;
        this.unassigned = new ArrayList<>(unassigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {}

    @Override
    public void addSplitsBack(List<PollSplit> splits, int subtaskId) {
        unassigned.addAll(splits);
        if (context.registeredReaders().containsKey(subtaskId)) {
            addReader(subtaskId);
        }
    }

    @Override
    public void addReader(int subtaskId) {
        if (subtaskId == 0 && !unassigned.isEmpty()) {
            context.assignSplit(unassigned.remove(0), 0);
        }
    }

    @Override
    public List<PollSplit> snapshotState(long checkpointId) {
        return List.copyOf(unassigned);
    }

    @Override
    public void close() {}

    /**
     * Its state's bytes, version 1: the count of splits, then each as an int length and its bytes.
     */
    static final class StateSerializer implements SimpleVersionedSerializer<List<PollSplit>> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(List<PollSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (PollSplit s : splits) {
                    byte[] split = PollSplit.Serializer.INSTANCE.serialize(s);
                    out.writeInt(split.length);
                    out.write(split);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<PollSplit> deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("unknown version " + version + " of a snapshot poll's state");
            }
            List<PollSplit> splits = new ArrayList<>();
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                for (int n = in.readInt(); n > 0; n--) {
                    byte[] split = new byte[in.readInt()];
                    in.readFully(split);
                    splits.add(PollSplit.Serializer.INSTANCE.deserialize(1, split));
                }
            }
            return splits;
        }
    }
}
