package dev.autocdc.job.format;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.utils.DataTypeUtils;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The format {@code 'format' = 'autocdc'}: wraps another format ({@code 'autocdc.format' = 'json'},
 * its options under {@code autocdc.json.*}) so that a record it cannot parse is not lost or
 * silently nulled (as {@code json.ignore-parse-errors} does) but reaches the flow's dead letters. A
 * good record is the inner format's row; a bad one is a row of nulls carrying two metadata columns
 * the flow reads: {@code autocdc.parse-error} (STRING, the parser's message) and {@code
 * autocdc.raw} (BYTES, the record as received). Declare them in the source table, for Kafka {@code
 * parse_error STRING METADATA FROM 'value.autocdc.parse-error' VIRTUAL} and {@code raw_record BYTES
 * METADATA FROM 'value.autocdc.raw' VIRTUAL} ({@code raw} is a reserved word); the planner routes
 * such rows to the dead letters with reason PARSE_ERROR and keeps both columns out of the target.
 */
public final class DeadLetterFormatFactory implements DeserializationFormatFactory {
    public static final String IDENTIFIER = "autocdc";
    public static final String PARSE_ERROR = "autocdc.parse-error";
    public static final String RAW = "autocdc.raw";
    static final ConfigOption<String> INNER =
            ConfigOptions.key("format")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("The format that parses the records, for example json.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(INNER);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
            DynamicTableFactory.Context context, ReadableConfig formatOptions) {
        String inner =
                formatOptions
                        .getOptional(INNER)
                        .orElseThrow(
                                () ->
                                        new ValidationException(
                                                "format 'autocdc' needs 'autocdc.format', the"
                                                        + " format it wraps (for example 'json')"));
        DeserializationFormatFactory factory =
                FactoryUtil.discoverFactory(
                        context.getClassLoader(), DeserializationFormatFactory.class, inner);
        Configuration innerOptions = new Configuration();
        Map<String, String> all = formatOptions instanceof Configuration c ? c.toMap() : Map.of();
        all.forEach(
                (k, v) -> {
                    if (k.startsWith(inner + ".")) {
                        innerOptions.setString(k.substring(inner.length() + 1), v);
                    }
                });
        return new Wrapped(factory.createDecodingFormat(context, innerOptions));
    }

    /** The wrapping decoding format: the inner one, plus the two metadata columns. */
    static final class Wrapped implements DecodingFormat<DeserializationSchema<RowData>> {
        private final DecodingFormat<DeserializationSchema<RowData>> inner;
        private List<String> metadata = List.of();

        Wrapped(DecodingFormat<DeserializationSchema<RowData>> inner) {
            this.inner = inner;
        }

        @Override
        public Map<String, DataType> listReadableMetadata() {
            Map<String, DataType> m = new LinkedHashMap<>();
            m.put(PARSE_ERROR, DataTypes.STRING());
            m.put(RAW, DataTypes.BYTES());
            return m;
        }

        @Override
        public void applyReadableMetadata(List<String> keys) {
            this.metadata = new ArrayList<>(keys);
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return inner.getChangelogMode();
        }

        @Override
        public DeserializationSchema<RowData> createRuntimeDecoder(
                DynamicTableSource.Context context, DataType physicalType) {
            DeserializationSchema<RowData> decoder =
                    inner.createRuntimeDecoder(context, physicalType);
            List<DataTypes.Field> fields = new ArrayList<>();
            for (String key : metadata) {
                fields.add(DataTypes.FIELD(key, listReadableMetadata().get(key)));
            }
            DataType produced = DataTypeUtils.appendRowFields(physicalType, fields);
            List<LogicalType> types = physicalType.getLogicalType().getChildren();
            RowData.FieldGetter[] getters = new RowData.FieldGetter[types.size()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = RowData.createFieldGetter(types.get(i), i);
            }
            return new Decoder(decoder, metadata, getters, context.createTypeInformation(produced));
        }
    }

    /**
     * Parses with the inner decoder; a failure becomes a row of nulls with the error and the raw
     * bytes.
     */
    static final class Decoder implements DeserializationSchema<RowData> {
        private static final long serialVersionUID = 1L;
        private final DeserializationSchema<RowData> inner;
        private final List<String> metadata;
        private final RowData.FieldGetter[] getters;
        private final TypeInformation<RowData> producedType;

        Decoder(
                DeserializationSchema<RowData> inner,
                List<String> metadata,
                RowData.FieldGetter[] getters,
                TypeInformation<RowData> producedType) {
            this.inner = inner;
            this.metadata = List.copyOf(metadata);
            this.getters = getters;
            this.producedType = producedType;
        }

        @Override
        public void open(InitializationContext context) throws Exception {
            inner.open(context);
        }

        @Override
        public RowData deserialize(byte[] message) throws IOException {
            throw new UnsupportedOperationException("use deserialize(byte[], Collector)");
        }

        @Override
        public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
            if (message == null) {
                return;
            }
            List<RowData> parsed = new ArrayList<>(2);
            try {
                inner.deserialize(
                        message,
                        new Collector<>() {
                            @Override
                            public void collect(RowData record) {
                                parsed.add(record);
                            }

                            @Override
                            public void close() {}
                        });
            } catch (IOException | RuntimeException e) {
                out.collect(
                        row(null, e.getMessage() == null ? e.toString() : e.getMessage(), message));
                return;
            }
            for (RowData row : parsed) {
                out.collect(row(row, null, null));
            }
        }

        /**
         * Physical fields (nulls when unparsed), then the requested metadata; a GenericRowData, as
         * connectors expect.
         */
        private GenericRowData row(RowData parsed, String error, byte[] raw) {
            GenericRowData out =
                    new GenericRowData(
                            parsed == null ? RowKind.INSERT : parsed.getRowKind(),
                            getters.length + metadata.size());
            if (parsed != null) {
                for (int i = 0; i < getters.length; i++) {
                    out.setField(i, getters[i].getFieldOrNull(parsed));
                }
            }
            for (int i = 0; i < metadata.size(); i++) {
                out.setField(
                        getters.length + i,
                        metadata.get(i).equals(PARSE_ERROR)
                                ? (error == null ? null : StringData.fromString(error))
                                : raw);
            }
            return out;
        }

        @Override
        public boolean isEndOfStream(RowData nextElement) {
            return false;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return producedType;
        }
    }
}
