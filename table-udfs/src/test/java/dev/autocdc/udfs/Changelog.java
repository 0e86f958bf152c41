package dev.autocdc.udfs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * A query's changelog and the table it materializes to, checked as it is applied: a retraction
 * ({@code -U}, {@code -D}) must carry exactly a row that is present; in retract mode a {@code +U}
 * must follow its {@code -U}; in upsert mode rows are keyed by the given columns. For tests.
 */
final class Changelog {
    final List<Row> changes = new ArrayList<>();

    /** The materialized rows as text (fields joined by '/'), with their multiplicity. */
    final Map<String, Integer> rows = new LinkedHashMap<>();

    private final int[] upsertKey;

    private Changelog(int[] upsertKey) {
        this.upsertKey = upsertKey;
    }

    /** An empty retract-mode changelog to {@link #apply} rows to. */
    static Changelog empty() {
        return new Changelog(null);
    }

    /** Runs a query in retract mode and materializes its changelog. */
    static Changelog of(TableEnvironment t, String sql) throws Exception {
        return of(t, sql, null);
    }

    /**
     * @param upsertKey the positions of the upsert key, or null for retract mode
     */
    static Changelog of(TableEnvironment t, String sql, int[] upsertKey) throws Exception {
        Changelog c = new Changelog(upsertKey);
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(c::apply);
        }
        return c;
    }

    private String pendingBefore;

    void apply(Row r) {
        changes.add(r);
        String text = text(r);
        if (pendingBefore != null && r.getKind() != RowKind.UPDATE_AFTER) {
            throw new AssertionError("-U not followed by its +U at " + r + " in " + changes);
        }
        switch (r.getKind()) {
            case INSERT:
                add(text, r);
                break;
            case UPDATE_BEFORE:
                remove(text, r);
                pendingBefore = text;
                break;
            case UPDATE_AFTER:
                if (upsertKey == null && pendingBefore == null) {
                    throw new AssertionError("+U without its -U: " + r + " in " + changes);
                }
                pendingBefore = null;
                add(text, r);
                break;
            default:
                remove(text, r);
        }
    }

    private void add(String text, Row r) {
        if (upsertKey != null) {
            String key = key(r);
            rows.keySet().removeIf(existing -> existing.startsWith(key));
        }
        rows.merge(text, 1, Integer::sum);
    }

    private void remove(String text, Row r) {
        Integer n = rows.get(text);
        if (n == null) {
            throw new AssertionError("retraction of an absent row: " + r + " in " + changes);
        }
        if (n == 1) {
            rows.remove(text);
        } else {
            rows.put(text, n - 1);
        }
    }

    private String key(Row r) {
        StringBuilder b = new StringBuilder();
        for (int k : upsertKey) {
            b.append(r.getField(k)).append('\u0001');
        }
        return b.toString();
    }

    private String text(Row r) {
        if (upsertKey != null) {
            return key(r) + fields(r);
        }
        return fields(r);
    }

    static String fields(Row r) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < r.getArity(); i++) {
            b.append(i == 0 ? "" : "/").append(r.getField(i));
        }
        return b.toString();
    }

    /** The materialized rows as text; a row present twice appears twice. */
    List<String> table() {
        List<String> out = new ArrayList<>();
        rows.forEach(
                (text, n) -> {
                    String row =
                            upsertKey == null
                                    ? text
                                    : text.substring(text.lastIndexOf('\u0001') + 1);
                    for (int i = 0; i < n; i++) {
                        out.add(row);
                    }
                });
        return out;
    }
}
