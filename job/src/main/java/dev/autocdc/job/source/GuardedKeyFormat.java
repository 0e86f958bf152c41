package dev.autocdc.job.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The key format of a Kafka source read as bytes ({@link SourceDecoding}): the source's own key
 * format, guarded, so that a record key it cannot read is a dead letter instead of a failed job
 * (semantics §11). Its rows are the key fields and, last, one STRING field: null when the key was
 * read, else why not, with the key's bytes in base64 (the key fields then null). The decoding step
 * ({@link RecordDecoder}) makes such a record a {@code PARSE_ERROR} letter with the value's bytes.
 *
 * <p>Option {@value #IDENTIFIER}{@code .format}: the key format and its options, as {@link
 * #describe} writes them (one option, so that the connector checks no option of the inner format
 * against this factory).
 */
public final class GuardedKeyFormat implements DeserializationFormatFactory {
    public static final String IDENTIFIER = "autocdc-guarded-key";

    static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The key format and its options (GuardedKeyFormat#describe).");

    /** The key format {@code format} with its options, as the option's value. */
    static String describe(String format, Map<String, String> options) {
        StringBuilder s = new StringBuilder(encode(format));
        options.forEach((k, v) -> s.append(';').append(encode(k)).append('=').append(encode(v)));
        return s.toString();
    }

    private static String encode(String s) {
        return Base64.getUrlEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String s) {
        return new String(Base64.getUrlDecoder().decode(s), StandardCharsets.UTF_8);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(FORMAT);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        String[] parts = formatOptions.get(FORMAT).split(";");
        String format = decode(parts[0]);
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=", 2);
            options.put(decode(kv[0]), decode(kv[1]));
        }
        DeserializationFormatFactory factory =
                FactoryUtil.discoverFactory(
                        Thread.currentThread().getContextClassLoader(),
                        DeserializationFormatFactory.class,
                        format);
        DecodingFormat<DeserializationSchema<RowData>> inner =
                factory.createDecodingFormat(context, Configuration.fromMap(options));
        return new DecodingFormat<>() {
            @Override
            public DeserializationSchema<RowData> createRuntimeDecoder(
                    DynamicTableSource.Context runtime, DataType physical) {
                List<DataTypes.Field> fields = DataType.getFields(physical);
                DataType keys = DataTypes.ROW(fields.subList(0, fields.size() - 1));
                return new Guarded(
                        inner.createRuntimeDecoder(runtime, keys),
                        (RowType) physical.getLogicalType(),
                        format);
            }

            @Override
            public ChangelogMode getChangelogMode() {
                return inner.getChangelogMode();
            }
        };
    }

    /** The guarded decoder: the inner one's fields, then why the key could not be read. */
    static final class Guarded implements DeserializationSchema<RowData> {
        private static final long serialVersionUID = 1L;

        private final DeserializationSchema<RowData> inner;
        private final RowType type;
        private final String format;
        private transient RowData.FieldGetter[] getters;

        Guarded(DeserializationSchema<RowData> inner, RowType type, String format) {
            this.inner = inner;
            this.type = type;
            this.format = format;
        }

        @Override
        public void open(InitializationContext context) throws Exception {
            inner.open(context);
            List<LogicalType> types = type.getChildren();
            getters = new RowData.FieldGetter[types.size() - 1];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(types.get(i), i);
            }
        }

        @Override
        public RowData deserialize(byte[] key) {
            GenericRowData row = new GenericRowData(getters.length + 1);
            if (key == null) {
                return row; // no key: its fields are null, as the connector reads it
            }
            RowData read;
            try {
                read = inner.deserialize(key);
            } catch (IOException | RuntimeException e) {
                row.setField(
                        getters.length,
                        StringData.fromString(
                                "the record's key could not be read by key.format "
                                        + format
                                        + ": "
                                        + (e.getMessage() == null ? e.toString() : e.getMessage())
                                        + "; the key (base64): "
                                        + Base64.getEncoder().encodeToString(key)));
                return row;
            }
            for (int i = 0; read != null && i < getters.length; i++) {
                row.setField(i, getters[i].getFieldOrNull(read));
            }
            return row;
        }

        @Override
        public boolean isEndOfStream(RowData next) {
            return false;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return InternalTypeInfo.of(type);
        }
    }
}
