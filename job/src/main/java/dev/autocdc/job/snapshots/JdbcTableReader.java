package dev.autocdc.job.snapshots;

import dev.autocdc.operators.flink.runtime.SequenceClock;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.apache.flink.connector.jdbc.core.database.JdbcFactoryLoader;
import org.apache.flink.connector.jdbc.core.database.dialect.JdbcDialect;
import org.apache.flink.connector.jdbc.core.database.dialect.JdbcDialectConverter;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads a whole JDBC table at each poll, as one snapshot ({@code 'connector' = 'jdbc-snapshots'}):
 * the query is the dialect's own {@code SELECT} of the declared columns, the values are converted
 * by the dialect's converter (Flink's JDBC connector, with the database's dialect and driver on the
 * classpath), streamed through a cursor of {@value #FETCH} rows.
 *
 * <p>The version: the read's start time (the metadata column {@code read-time}), a new snapshot at
 * every read; or a column of the table ({@code version-column}): then a read happens only when the
 * column's greatest value is newer than the latest snapshot's, each row is timed by its own value,
 * and the rows of versions sent before are not sent again (a table may keep several versions). A
 * row whose version is null is sent as it is, and the flow refuses it (a dead letter per read).
 */
final class JdbcTableReader implements SnapshotReader<RowData> {
    private static final long serialVersionUID = 1L;
    static final int FETCH = 1000;

    private final String url;
    private final String table;
    private final String user;
    private final String password;
    private final RowType columns;
    private final boolean readTimeColumn;
    private final int versionField;

    private transient JdbcDialect dialect;
    private transient JdbcDialectConverter converter;
    private transient SequenceClock clock;

    /**
     * @param readTimeColumn whether each row gets the read's time as a last column
     * @param versionField the version column's index in {@code columns}; -1: the read's time
     */
    JdbcTableReader(
            String url,
            String table,
            String user,
            String password,
            RowType columns,
            boolean readTimeColumn,
            int versionField) {
        this.url = url;
        this.table = table;
        this.user = user;
        this.password = password;
        this.columns = columns;
        this.readTimeColumn = readTimeColumn;
        this.versionField = versionField;
    }

    @Override
    public void open(ClassLoader classLoader) {
        try {
            dialect = JdbcFactoryLoader.loadDialect(url, classLoader);
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException(
                    "'connector' = 'jdbc-snapshots' needs Flink's JDBC connector"
                            + " (flink-connector-jdbc-core and the database's module, such as"
                            + " flink-connector-jdbc-postgres) and the database's JDBC driver in"
                            + " Flink's lib/",
                    e);
        }
        converter = dialect.getRowConverter(columns);
        if (versionField >= 0) {
            clock = SequenceClock.of(versionField, columns.getTypeAt(versionField));
        }
    }

    @Override
    public Emitted next(Serializable latest, Rows<RowData> rows) throws Exception {
        long readTime = System.currentTimeMillis();
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            c.setAutoCommit(false); // a cursor, not the whole table in memory (PostgreSQL)
            c.setReadOnly(true);
            if (versionField >= 0) {
                Long newest = newestVersion(c);
                if (newest == null || (latest != null && newest <= (Long) latest)) {
                    return null; // nothing newer than the latest snapshot
                }
            }
            String query =
                    dialect.getSelectFromStatement(
                            table, columns.getFieldNames().toArray(new String[0]), new String[0]);
            long newest = Long.MIN_VALUE;
            try (PreparedStatement s = c.prepareStatement(query)) {
                s.setFetchSize(FETCH);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        RowData row = converter.toInternal(r);
                        long time = readTime;
                        if (versionField >= 0) {
                            time = row.isNullAt(versionField) ? Long.MIN_VALUE : clock.read(row);
                            if (latest != null
                                    && !row.isNullAt(versionField)
                                    && time <= (Long) latest) {
                                continue; // a version applied before: read, not sent again
                            }
                            newest = Math.max(newest, time);
                        }
                        rows.emit(
                                readTimeColumn
                                        ? new JoinedRowData(
                                                row,
                                                GenericRowData.of(
                                                        TimestampData.fromEpochMillis(readTime)))
                                        : row,
                                time);
                    }
                }
            }
            c.commit();
            long time = versionField >= 0 ? newest : readTime;
            return new Emitted(time, time);
        }
    }

    /** The version column's greatest value's time; null for an empty table. */
    private Long newestVersion(Connection c) throws Exception {
        String column = dialect.quoteIdentifier(columns.getFieldNames().get(versionField));
        // the table quoted as the dialect's own SELECT quotes it
        String query = "SELECT MAX(" + column + ") FROM " + dialect.quoteIdentifier(table);
        try (PreparedStatement s = c.prepareStatement(query);
                ResultSet r = s.executeQuery()) {
            if (!r.next()) {
                return null;
            }
            RowType one = RowType.of(columns.getTypeAt(versionField));
            RowData max = dialect.getRowConverter(one).toInternal(r);
            return max.isNullAt(0) ? null : SequenceClock.of(0, one.getTypeAt(0)).read(max);
        }
    }

    @Override
    public boolean catchesUp() {
        return false;
    }
}
