package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.spec.OutputMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.types.RowKind;

/**
 * Materializes a Flink changelog (retract or upsert mode) by primary key and fails on the first row
 * that is not well formed: +I for a present key, -U/-D that does not carry exactly the present row,
 * a +U not preceded by its -U (retract mode). For tests.
 */
final class ChangelogTable {
    private final int[] primaryKey;
    private final OutputMode mode;
    private final Map<List<Object>, Object[]> rows = new LinkedHashMap<>();
    private List<Object> pendingUpdate;

    ChangelogTable(int[] primaryKey, OutputMode mode) {
        this.primaryKey = primaryKey;
        this.mode = mode;
    }

    void apply(List<Change> changes) {
        for (Change c : changes) {
            apply(c);
        }
    }

    void apply(Change c) {
        List<Object> k = key(c.values());
        if (pendingUpdate != null && c.kind() != RowKind.UPDATE_AFTER) {
            throw new AssertionError("-U not followed by its +U: " + c);
        }
        switch (c.kind()) {
            case INSERT:
                if (rows.containsKey(k)) {
                    throw new AssertionError("+I for a present key: " + c);
                }
                rows.put(k, c.values());
                break;
            case UPDATE_BEFORE:
                checkPresent(k, c);
                pendingUpdate = k;
                break;
            case UPDATE_AFTER:
                if (mode == OutputMode.RETRACT) {
                    if (!k.equals(pendingUpdate)) {
                        throw new AssertionError("+U without its -U: " + c);
                    }
                    pendingUpdate = null;
                } else if (!rows.containsKey(k)) {
                    throw new AssertionError(
                            "+U for an absent key in upsert mode (the engine emits +I first): "
                                    + c);
                }
                rows.put(k, c.values());
                break;
            default:
                checkPresent(k, c);
                rows.remove(k);
        }
    }

    private void checkPresent(List<Object> k, Change c) {
        Object[] present = rows.get(k);
        if (present == null || !Arrays.deepEquals(present, c.values())) {
            throw new AssertionError(
                    "retraction "
                            + c
                            + " does not match the present row "
                            + (present == null ? "(none)" : Arrays.deepToString(present)));
        }
    }

    private List<Object> key(Object[] row) {
        List<Object> k = new ArrayList<>();
        for (int i : primaryKey) {
            k.add(row[i]);
        }
        return k;
    }

    Set<List<Object>> rows() {
        Set<List<Object>> out = new HashSet<>();
        rows.values().forEach(r -> out.add(Arrays.asList(r)));
        return out;
    }
}
