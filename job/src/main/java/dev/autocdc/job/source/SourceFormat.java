package dev.autocdc.job.source;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ContextResolvedTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.types.DataType;

/**
 * A source's connector and format as {@link SourceDecoding} reads them: whether the source is read
 * as bytes ({@link #readable}), the twin table that reads it so ({@link #twinDescriptor}), and the
 * source's own format, created as its connector would create it, that decodes the bytes ({@link
 * #format}).
 */
final class SourceFormat {
    /** The filesystem formats read a line per record, as the decoding step reads them. */
    static final Set<String> LINE_FORMATS =
            Set.of("json", "debezium-json", "canal-json", "maxwell-json", "ogg-json");

    private SourceFormat() {}

    /** A source read as bytes: its table, connector and format. */
    record Readable(
            ObjectIdentifier id,
            ResolvedCatalogTable table,
            boolean kafka,
            String format,
            String formatPrefix) {}

    /**
     * The source when it is a Kafka or filesystem table (not partitioned) whose format is not raw
     * (filesystem: a line format); else null: it is read as declared.
     */
    static Readable readable(StreamTableEnvironment tEnv, String source) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        CatalogManager catalogs = internal.getCatalogManager();
        ObjectIdentifier id =
                catalogs.qualifyIdentifier(internal.getParser().parseIdentifier(source));
        ContextResolvedTable resolved = catalogs.getTable(id).orElse(null);
        if (resolved == null
                || !(resolved.getResolvedTable() instanceof ResolvedCatalogTable table)
                || table.isPartitioned()) {
            return null;
        }
        Map<String, String> options = table.getOptions();
        String connector = options.get("connector");
        boolean kafka = "kafka".equals(connector);
        if (!kafka && !"filesystem".equals(connector)) {
            return null;
        }
        String formatKey = kafka && options.containsKey("value.format") ? "value.format" : "format";
        String format = options.get(formatKey);
        if (format == null || format.equals("raw") || (!kafka && !LINE_FORMATS.contains(format))) {
            return null;
        }
        String formatPrefix = (formatKey.equals("value.format") ? "value." : "") + format + ".";
        return new Readable(id, table, kafka, format, formatPrefix);
    }

    /**
     * The twin table's descriptor: the source's connector and options, the raw format for the
     * value; the format's own options go to {@code formatOptions}.
     */
    static TableDescriptor.Builder twinDescriptor(
            Map<String, String> options,
            String formatPrefix,
            boolean kafka,
            DecodingLayout layout,
            Configuration formatOptions) {
        TableDescriptor.Builder descriptor = TableDescriptor.forConnector(options.get("connector"));
        String keyPrefix =
                layout.keyError == null ? null : "key." + options.get("key.format") + ".";
        Map<String, String> keyOptions = new HashMap<>();
        for (Map.Entry<String, String> o : options.entrySet()) {
            String k = o.getKey();
            if (k.startsWith(formatPrefix)) {
                formatOptions.setString(k.substring(formatPrefix.length()), o.getValue());
            } else if (keyPrefix != null && k.startsWith(keyPrefix)) {
                keyOptions.put(k.substring(keyPrefix.length()), o.getValue());
            } else if (!k.equals("connector") && !k.equals("format") && !k.equals("value.format")) {
                descriptor.option(k, o.getValue());
            }
        }
        descriptor.option(kafka ? "value.format" : "format", "raw");
        if (keyPrefix != null) {
            descriptor.option("key.format", GuardedKeyFormat.IDENTIFIER);
            descriptor.option(
                    "key." + GuardedKeyFormat.IDENTIFIER + "." + GuardedKeyFormat.FORMAT.key(),
                    GuardedKeyFormat.describe(options.get("key.format"), keyOptions));
            descriptor.option("key.fields", options.get("key.fields") + ";" + layout.keyError);
        }
        if (!layout.keyFields.isEmpty()) {
            descriptor.option("value.fields-include", "EXCEPT_KEY");
        }
        return descriptor;
    }

    /** The source's format as its connector would create it: the decoder and what it gives. */
    record Format(
            DeserializationSchema<RowData> decoder,
            ChangelogMode mode,
            Map<String, DataType> metadataTypes) {}

    /**
     * The source's format as its connector would create it; a format that refuses its options or
     * metadata fails naming the source.
     */
    static Format format(
            StreamTableEnvironment tEnv,
            String source,
            Readable readable,
            Configuration formatOptions,
            DecodingLayout layout) {
        try {
            return create(
                    tEnv,
                    readable.id(),
                    readable.table(),
                    readable.format(),
                    formatOptions,
                    layout);
        } catch (ValidationException e) {
            throw new ValidationException(
                    "source " + source + ": format " + readable.format() + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * Flink's filesystem connector's own metadata keys ({@code FileSystemTableSource}'s readable
     * file infos, which it does not export).
     */
    private static final List<String> FILE_METADATA =
            List.of("file.path", "file.name", "file.size", "file.modification-time");

    /** Why a metadata key is unknown, with every key the source does have. */
    private static String unknownMetadata(
            String key,
            String format,
            DecodingFormat<DeserializationSchema<RowData>> decoding,
            Map<String, String> options) {
        boolean kafka = "kafka".equals(options.get("connector"));
        List<String> keys = new ArrayList<>();
        decoding.listReadableMetadata().keySet().stream()
                .sorted()
                .forEach(k -> keys.add(DecodingLayout.VALUE + k));
        String formats =
                keys.isEmpty()
                        ? "format " + format + " has no metadata of its own"
                        : "format " + format + " has " + String.join(", ", keys);
        String connector =
                kafka
                        ? "the kafka connector has its own (topic, partition, offset, timestamp,"
                                + " headers, ...)"
                        : "the filesystem connector has " + String.join(", ", FILE_METADATA);
        return "no metadata '" + DecodingLayout.VALUE + key + "': " + formats + "; " + connector;
    }

    private static Format create(
            StreamTableEnvironment tEnv,
            ObjectIdentifier id,
            ResolvedCatalogTable table,
            String format,
            Configuration formatOptions,
            DecodingLayout layout) {
        DeserializationFormatFactory factory =
                FactoryUtil.discoverFactory(
                        Thread.currentThread().getContextClassLoader(),
                        DeserializationFormatFactory.class,
                        format);
        FactoryUtil.validateFactoryOptions(factory, formatOptions);
        // a record the format skips or nulls would be lost without a word: the flow's dead
        // letters replace the option (bad-records = 'fail' gives it back)
        for (ConfigOption<?> o : factory.optionalOptions()) {
            if (o.key().equals("ignore-parse-errors")) {
                formatOptions.setString(o.key(), "false");
            }
        }
        DecodingFormat<DeserializationSchema<RowData>> decoding =
                factory.createDecodingFormat(
                        new FactoryUtil.DefaultDynamicTableContext(
                                id,
                                table,
                                Map.of(),
                                tEnv.getConfig(),
                                Thread.currentThread().getContextClassLoader(),
                                true),
                        formatOptions);
        Map<String, DataType> metadataTypes = new HashMap<>(); // the format's own types
        if (!layout.formatMetadata.isEmpty()) {
            for (String key : layout.formatMetadata) {
                if (!decoding.listReadableMetadata().containsKey(key)) {
                    throw new ValidationException(
                            unknownMetadata(key, format, decoding, table.getOptions()));
                }
            }
            decoding.applyReadableMetadata(layout.formatMetadata);
            layout.formatMetadata.forEach(
                    k -> metadataTypes.put(k, decoding.listReadableMetadata().get(k)));
        }
        return new Format(
                decoding.createRuntimeDecoder(
                        ScanRuntimeProviderContext.INSTANCE, layout.valueType()),
                decoding.getChangelogMode(),
                metadataTypes);
    }
}
