package dev.autocdc.job.source;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.TypeInference;
import org.apache.flink.table.types.inference.TypeStrategies;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A record's bytes decoded by its source's format, inside the source, for the watermark of a flow
 * from snapshots ({@link SnapshotWatermark}): the row of the source's value columns, or null when
 * the format cannot read the bytes (the decoding step, {@link RecordDecoder}, sends such a record
 * to the dead letters; here it only leaves the watermark where it was), or whose numbers the format
 * would coerce ({@link ExactNumbers}: a version of 9.5 read as INT is 9, but the record is a dead
 * letter, and must not move the watermark as a row of snapshot 9 would). Never throws: an exception
 * in a watermark expression would fail the source. The last record's row is kept, since the
 * watermark expression reads several of its columns.
 */
public final class SnapshotRecordFunction extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    private final DeserializationSchema<RowData> format;
    private final DataType valueType;
    private final ExactNumbers numbers;
    private transient byte[] lastBytes;
    private transient RowData last;
    private transient List<RowData> decoded;
    private transient Collector<RowData> into;

    /**
     * @param format the source's format, as the decoding step has it
     * @param valueType the ROW of the columns the format decodes
     * @param numbers the decoding step's check of exact numbers, or null
     */
    public SnapshotRecordFunction(
            DeserializationSchema<RowData> format, DataType valueType, ExactNumbers numbers) {
        this.format = format;
        this.valueType = valueType;
        this.numbers = numbers;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        // a watermark generator's context offers neither metrics nor the class loader
        MetricGroup metrics;
        ClassLoader classLoader;
        try {
            metrics = context.getMetricGroup();
        } catch (RuntimeException e) {
            metrics = new UnregisteredMetricsGroup();
        }
        try {
            classLoader = context.getUserCodeClassLoader();
        } catch (RuntimeException e) {
            classLoader = getClass().getClassLoader();
        }
        start(metrics, classLoader);
    }

    /** Opens the format; {@link #eval} opens it on first use if nobody did. */
    private void start(MetricGroup metrics, ClassLoader classLoader) throws Exception {
        format.open(
                new DeserializationSchema.InitializationContext() {
                    @Override
                    public MetricGroup getMetricGroup() {
                        return metrics;
                    }

                    @Override
                    public UserCodeClassLoader getUserCodeClassLoader() {
                        return SimpleUserCodeClassLoader.create(classLoader);
                    }
                });
        decoded = new ArrayList<>(2);
        into =
                new Collector<>() {
                    @Override
                    public void collect(RowData r) {
                        decoded.add(r);
                    }

                    @Override
                    public void close() {}
                };
    }

    public RowData eval(byte[] bytes) {
        if (bytes == lastBytes) {
            return last;
        }
        lastBytes = bytes;
        last = null;
        if (bytes == null) {
            return null;
        }
        try {
            if (into == null) {
                start(new UnregisteredMetricsGroup(), getClass().getClassLoader());
            }
            decoded.clear();
            format.deserialize(bytes, into);
            if (numbers != null && !decoded.isEmpty() && numbers.check(bytes) != null) {
                return null;
            }
        } catch (Exception | LinkageError e) {
            return null;
        }
        last = decoded.isEmpty() ? null : decoded.get(decoded.size() - 1);
        return last;
    }

    @Override
    public TypeInference getTypeInference(DataTypeFactory typeFactory) {
        return TypeInference.newBuilder()
                .typedArguments(org.apache.flink.table.api.DataTypes.BYTES())
                .outputTypeStrategy(TypeStrategies.explicit(valueType.bridgedTo(RowData.class)))
                .build();
    }

    @Override
    public boolean isDeterministic() {
        return true;
    }
}
