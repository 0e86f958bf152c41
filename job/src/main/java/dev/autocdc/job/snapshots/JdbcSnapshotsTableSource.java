package dev.autocdc.job.snapshots;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsSourceWatermark;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The table of {@code 'connector' = 'jdbc-snapshots'}: a JDBC table read whole at an interval, each
 * read a snapshot ({@link JdbcTableReader}), from a {@link PolledSnapshotSource} whose watermark
 * ({@code WATERMARK FOR ... AS SOURCE_WATERMARK()}) completes each snapshot once read. Metadata:
 * {@value #READ_TIME}, the read's start time.
 */
final class JdbcSnapshotsTableSource
        implements ScanTableSource, SupportsReadingMetadata, SupportsSourceWatermark {
    static final String READ_TIME = "read-time";

    private final JdbcSnapshotsFactory.Settings settings;
    private final RowType physical;
    private DataType produced;
    private boolean readTime;

    JdbcSnapshotsTableSource(JdbcSnapshotsFactory.Settings settings, DataType physical) {
        this.settings = settings;
        this.physical = (RowType) physical.getLogicalType();
        this.produced = physical;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        JdbcTableReader reader =
                new JdbcTableReader(
                        settings.url(),
                        settings.table(),
                        settings.user(),
                        settings.password(),
                        physical,
                        readTime,
                        settings.versionColumn() == null
                                ? -1
                                : physical.getFieldIndex(settings.versionColumn()));
        InternalTypeInfo<RowData> type = InternalTypeInfo.of(produced.getLogicalType());
        Duration interval = settings.interval();
        String name = "snapshots of " + settings.table();
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext provider, StreamExecutionEnvironment env) {
                var stream = new PolledSnapshotSource<>(reader, interval).stream(env, name, type);
                provider.generateUid("jdbc-snapshots").ifPresent(stream::uid);
                return stream;
            }

            @Override
            public boolean isBounded() {
                return false;
            }
        };
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        return Map.of(READ_TIME, DataTypes.TIMESTAMP_LTZ(3).notNull());
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        this.readTime = metadataKeys.contains(READ_TIME);
        this.produced = producedDataType;
    }

    @Override
    public void applySourceWatermark() {
        // the source emits it: at each snapshot's time once the snapshot is read
    }

    @Override
    public DynamicTableSource copy() {
        JdbcSnapshotsTableSource copy =
                new JdbcSnapshotsTableSource(settings, DataTypes.of(physical));
        copy.produced = produced;
        copy.readTime = readTime;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "jdbc-snapshots";
    }
}
