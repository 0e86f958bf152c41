package dev.autocdc.job.snapshots;

import java.io.Serializable;
import java.time.Duration;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'jdbc-snapshots'}: a table of a database read whole at an interval, for a
 * flow {@code FROM SNAPSHOT} (docs/snapshots.md). Its options name the table as Flink's {@code
 * jdbc} connector does ({@code url}, {@code table-name}, {@code username}, {@code password}); it
 * refers to no class of that connector, which is loaded only when the source runs.
 */
public final class JdbcSnapshotsFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "jdbc-snapshots";

    static final ConfigOption<String> URL = ConfigOptions.key("url").stringType().noDefaultValue();
    static final ConfigOption<String> TABLE =
            ConfigOptions.key("table-name").stringType().noDefaultValue();
    static final ConfigOption<String> USER =
            ConfigOptions.key("username").stringType().noDefaultValue();
    static final ConfigOption<String> PASSWORD =
            ConfigOptions.key("password").stringType().noDefaultValue();
    static final ConfigOption<Duration> INTERVAL =
            ConfigOptions.key("interval")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription("how often the table is read");
    static final ConfigOption<String> VERSION_COLUMN =
            ConfigOptions.key("version-column")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "a column holding each row's snapshot version; none: the read's time");

    /** The options as the source needs them. */
    record Settings(
            String url,
            String table,
            String user,
            String password,
            Duration interval,
            String versionColumn)
            implements Serializable {}

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(URL, TABLE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(USER, PASSWORD, INTERVAL, VERSION_COLUMN);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        RowType physical = (RowType) context.getPhysicalRowDataType().getLogicalType();
        String version = options.get(VERSION_COLUMN);
        if (version != null) {
            int i = physical.getFieldNames().indexOf(version);
            if (i < 0) {
                throw new ValidationException(
                        "'version-column' = '"
                                + version
                                + "' is not a physical column of the table; the columns are "
                                + physical.getFieldNames());
            }
            if (!VersionTimes.timed(physical.getTypeAt(i))) {
                throw new ValidationException(
                        "'version-column' = '"
                                + version
                                + "' is "
                                + physical.getTypeAt(i)
                                + "; a version must have a time: an integer (TINYINT to BIGINT),"
                                + " DATE or TIMESTAMP");
            }
        }
        if (options.get(INTERVAL).isZero() || options.get(INTERVAL).isNegative()) {
            throw new ValidationException("'interval' must be positive");
        }
        return new JdbcSnapshotsTableSource(
                new Settings(
                        options.get(URL),
                        options.get(TABLE),
                        options.get(USER),
                        options.get(PASSWORD),
                        options.get(INTERVAL),
                        version),
                context.getPhysicalRowDataType());
    }
}
