package dev.autocdc.job.source;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.data.RowData;

/**
 * The tables a script's flows read as bytes ({@link SourceDecoding}), so that flows reading one
 * table share one source: a Kafka topic is then consumed once, with one set of offsets, and each
 * flow decodes the same records with its own decoding step.
 *
 * <p>Two flows share a read when both may share ({@link Sharing}) and they read the same table
 * through equal twin tables (the same connector options and columns; a twin that carries one flow's
 * snapshot watermark is that flow's alone). One instance serves one table environment, for the
 * flows planned in it.
 */
public final class ByteReads {
    /** The shared read of each table, by the table's name as the flows name it. */
    private final Map<String, Read> shared = new HashMap<>();

    /**
     * How a flow may share its table's read.
     *
     * @param uid the uid of the table's shared source
     * @param alone whether a read that feeds this flow alone has that uid too (the savepoint the
     *     job restores holds it, or the flow is set to share)
     */
    public record Sharing(String uid, boolean alone) {}

    /** One read of a table as bytes, and the flows it feeds in the order they were planned. */
    public static final class Read {
        private final DataStream<RowData> rows;
        private final Sharing sharing;
        private final String twin;
        private final List<String> flows = new ArrayList<>();

        private Read(DataStream<RowData> rows, Sharing sharing, String twin) {
            this.rows = rows;
            this.sharing = sharing;
            this.twin = twin;
        }

        /** The stream of the read's records: the twin's rows. */
        DataStream<RowData> rows() {
            return rows;
        }

        /**
         * The uid of this read's source: the shared uid when the read may be shared and feeds more
         * than one flow, or feeds one that keeps it alone ({@link Sharing#alone}); else {@code
         * ownUid}, that of the one flow it feeds. Ask once every flow is planned.
         */
        public String uid(String ownUid) {
            return sharing != null && (flows.size() > 1 || sharing.alone())
                    ? sharing.uid()
                    : ownUid;
        }
    }

    /**
     * The read of {@code table} for {@code flow}: an earlier flow's shared read of the same twin,
     * or a new one that {@code read} makes, told whether it is the table's shared read.
     *
     * @param twin the table read as bytes, as declared for this flow
     * @param sharing how the flow may share the read; null: it reads the table on its own
     */
    Read read(
            String table,
            TableDescriptor twin,
            String flow,
            Sharing sharing,
            Function<Boolean, DataStream<RowData>> read) {
        Read found = sharing == null ? null : shared.get(table);
        if (found == null || !found.twin.equals(twin.toString())) {
            boolean shares = sharing != null && found == null;
            found = new Read(read.apply(shares), shares ? sharing : null, twin.toString());
            if (shares) {
                shared.put(table, found);
            }
        }
        found.flows.add(flow);
        return found;
    }
}
