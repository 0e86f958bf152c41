package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a changelog in order to a table keyed by the target's primary key, and fails on the first
 * change that is not well formed (semantics §8): an insert for a key that is present, an update or
 * delete of a key that is absent, or a retraction that does not carry exactly the row it retracts.
 */
public final class MaterializedTable {
    private final int[] primaryKey;
    private final Map<List<Object>, Object[]> rows = new LinkedHashMap<>();

    /**
     * @param primaryKey positions of the primary key's columns in the target row
     */
    public MaterializedTable(int... primaryKey) {
        this.primaryKey = primaryKey;
    }

    public void apply(TargetChange change) {
        switch (change.kind()) {
            case INSERT:
                {
                    List<Object> k = key(change.after());
                    if (rows.containsKey(k)) {
                        throw new AssertionError(
                                "+I for a present key "
                                        + k
                                        + ": "
                                        + change
                                        + ", table has "
                                        + Arrays.deepToString(rows.get(k)));
                    }
                    rows.put(k, change.after());
                    break;
                }
            case UPDATE:
                {
                    List<Object> k = key(change.before());
                    checkRetracts(k, change);
                    if (!k.equals(key(change.after()))) {
                        throw new AssertionError("update changes the primary key: " + change);
                    }
                    rows.put(k, change.after());
                    break;
                }
            case DELETE:
                {
                    List<Object> k = key(change.before());
                    checkRetracts(k, change);
                    rows.remove(k);
                    break;
                }
            default:
                throw new IllegalStateException();
        }
    }

    public void applyAll(List<TargetChange> changes) {
        changes.forEach(this::apply);
    }

    private void checkRetracts(List<Object> k, TargetChange change) {
        Object[] present = rows.get(k);
        if (present == null) {
            throw new AssertionError("retraction of an absent key " + k + ": " + change);
        }
        if (!Arrays.deepEquals(present, change.before())) {
            throw new AssertionError(
                    "retraction carries "
                            + Arrays.deepToString(change.before())
                            + " but the table has "
                            + Arrays.deepToString(present));
        }
    }

    private List<Object> key(Object[] row) {
        List<Object> k = new ArrayList<>(primaryKey.length);
        for (int i : primaryKey) {
            k.add(row[i]);
        }
        return k;
    }

    /** The rows as lists (for comparison with expected tables). */
    public Set<List<Object>> rows() {
        Set<List<Object>> out = new HashSet<>();
        for (Object[] r : rows.values()) {
            out.add(Arrays.asList(r));
        }
        return out;
    }

    public int size() {
        return rows.size();
    }
}
