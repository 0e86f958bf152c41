package dev.autocdc.job.plan;

import dev.autocdc.job.flow.Spelling;
import dev.autocdc.job.source.GuardedKeyFormat;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.connector.file.table.factories.BulkReaderFormatFactory;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.Factory;

/**
 * Checks that Flink has the connector and the formats of each table a flow reads ({@link
 * ReadTables}): {@code 'connector'} names a source connector, and {@code 'format'}, {@code
 * 'key.format'} and {@code 'value.format'} name formats that read records (for the filesystem
 * connector, file formats too). A name Flink lacks fails on the table's line, with the names it has
 * and the one it looks like. Options are checked by the connector later; a table without {@code
 * 'connector'} (a catalog's own) is left alone.
 */
final class SourceFormats {
    private static final List<String> FORMAT_OPTIONS =
            List.of("format", "key.format", "value.format");

    private SourceFormats() {}

    /** Checks the tables {@code flow} reads. */
    static void check(List<ReadTables.ReadTable> tables, String flow) {
        if (tables.isEmpty()) {
            return;
        }
        Set<String> connectors = identifiers(DynamicTableSourceFactory.class);
        Set<String> recordFormats = identifiers(DeserializationFormatFactory.class);
        Set<String> fileFormats = new TreeSet<>(recordFormats);
        fileFormats.addAll(identifiers(BulkReaderFormatFactory.class));
        for (ReadTables.ReadTable t : tables) {
            String connector = t.options().get("connector");
            if (connector == null) {
                continue;
            }
            if (!connectors.contains(connector)) {
                throw t.error(
                        unknown("connector", connector, "the source connectors", connectors, flow));
            }
            Set<String> formats = connector.equals("filesystem") ? fileFormats : recordFormats;
            for (String option : FORMAT_OPTIONS) {
                String format = t.options().get(option);
                if (format != null && !formats.contains(format)) {
                    throw t.error(unknown(option, format, "the formats", formats, flow));
                }
            }
        }
    }

    /** The message for an unknown connector or format. */
    private static String unknown(
            String option, String value, String what, Set<String> available, String flow) {
        String meant = Spelling.closest(value, available);
        String names =
                available.isEmpty()
                        ? "Flink finds none on the classpath; add the jar that provides it (for a"
                                + " cluster, to its lib/ directory)"
                        : what + " Flink has are " + String.join(", ", available);
        return "unknown "
                + (option.equals("connector") ? "connector" : "format")
                + " '"
                + value
                + "' ('"
                + option
                + "', read by flow "
                + flow
                + "); "
                + (meant == null ? "" : "did you mean '" + meant + "'? ")
                + names;
    }

    /** The identifiers of the factories of {@code kind} on the classpath, sorted. */
    private static Set<String> identifiers(Class<? extends Factory> kind) {
        Set<String> out = new TreeSet<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Iterator<Factory> factories = ServiceLoader.load(Factory.class, loader).iterator();
        while (true) {
            Factory f;
            try {
                if (!factories.hasNext()) {
                    return out;
                }
                f = factories.next();
            } catch (ServiceConfigurationError | NoClassDefFoundError unloadable) {
                continue; // a factory whose dependencies are missing, as Flink skips it
            }
            if (kind.isInstance(f) && !(f instanceof GuardedKeyFormat)) { // the job's own
                out.add(f.factoryIdentifier());
            }
        }
    }
}
