package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.TargetType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a flow's stored state means, as text that a savepoint keeps next to it ({@code
 * StateNames.FLOW_SHAPE}), so that a restore into a changed flow is refused with the change named
 * instead of reading bytes as something they are not, or silently starting every key afresh (a
 * target type's states have other names). One line each, in this order:
 *
 * <pre>
 * target SCD1|SCD2|BITEMPORAL
 * keys name, name, ...
 * sequence TYPE
 * system sequence TYPE          (bitemporal only)
 * untracked name, ...           (SCD2 and bitemporal: value columns TRACK HISTORY leaves out)
 * ignore null name, ...         (columns IGNORE NULL UPDATES applies to)
 * columns to update yes|no      (COLUMNS TO UPDATE)
 * column name\tTYPE[ NOT NULL] (one per stored column, in the flow's order; a tab before the type)
 * </pre>
 *
 * {@code TYPE} is {@link dev.autocdc.operators.core.ColumnType}'s text, as the state serializers'
 * snapshots write it. The only change a restore accepts: nullable columns added after the last one
 * (stored rows read them as null until an event of the key fills them). TRACK HISTORY and IGNORE
 * NULL UPDATES are compared over the stored columns (an added column may take either), and only
 * when the stored shape has their line: savepoints of builds before these lines restore whatever
 * the clauses say now.
 */
public final class FlowShape {
    private static final String UNTRACKED = "untracked ";
    private static final String IGNORE_NULL = "ignore null ";
    private static final String COLUMNS_TO_UPDATE = "columns to update ";

    private FlowShape() {}

    /** The verdict on restoring stored state into the current flow. */
    public record Verdict(int storedColumns, String refusal) {
        public boolean refused() {
            return refusal != null;
        }
    }

    /** The shape of {@code spec}'s flow. */
    public static String of(EngineSpec spec) {
        Flow flow = spec.flow();
        List<String> lines = new ArrayList<>();
        lines.add("target " + flow.targetType());
        List<String> keys = new ArrayList<>();
        for (int k : flow.keyIndexes()) {
            keys.add(flow.columnNames().get(k));
        }
        lines.add("keys " + String.join(", ", keys));
        lines.add("sequence " + flow.sequenceType());
        if (flow.targetType() == TargetType.BITEMPORAL) {
            lines.add("system sequence " + flow.systemSequenceType());
        }
        List<String> untracked = new ArrayList<>();
        List<String> ignoreNull = new ArrayList<>();
        for (int i = 0; i < flow.columnCount(); i++) {
            if (flow.isValueColumn(i) && !flow.isSequenceColumn(i) && !flow.isTracked(i)) {
                untracked.add(flow.columnNames().get(i));
            }
            if (flow.ignoresNull(i)) {
                ignoreNull.add(flow.columnNames().get(i));
            }
        }
        if (flow.targetType() != TargetType.SCD1) {
            lines.add(UNTRACKED + String.join(", ", untracked));
        }
        lines.add(IGNORE_NULL + String.join(", ", ignoreNull));
        lines.add(COLUMNS_TO_UPDATE + (flow.hasColumnsToUpdate() ? "yes" : "no"));
        for (int i = 0; i < flow.columnCount(); i++) {
            boolean nullable = spec.inputType().getTypeAt(spec.baseFields()[i]).isNullable();
            lines.add(
                    "column "
                            + flow.columnNames().get(i)
                            + "\t"
                            + flow.columnTypes().get(i)
                            + (nullable ? "" : " NOT NULL"));
        }
        return String.join("\n", lines);
    }

    /**
     * Whether state stored for shape {@code stored} may be restored into flow {@code flow} of shape
     * {@code current}; a refusal names the first change and the way forward.
     */
    public static Verdict compare(String flow, String stored, String current) {
        List<String> was = List.of(stored.split("\n"));
        List<String> is = List.of(current.split("\n"));
        List<String> wasColumns = columns(was);
        List<String> isColumns = columns(is);
        String change = null;
        List<String> wasHead = was.subList(0, was.size() - wasColumns.size());
        List<String> isHead = is.subList(0, is.size() - isColumns.size());
        for (String prefix : List.of("target ", "keys ", "sequence ", "system sequence ")) {
            String a = line(wasHead, prefix);
            String b = line(isHead, prefix);
            if (change == null && !Objects.equals(a, b)) {
                change = what(prefix, a, b);
            }
        }
        for (int i = 0; change == null && i < wasColumns.size(); i++) {
            String[] a = wasColumns.get(i).split("\t", 2);
            int at = indexOf(isColumns, a[0]);
            if (at < 0) {
                change = "column " + a[0] + " was dropped";
            } else if (at != i) {
                change =
                        "column "
                                + a[0]
                                + " moved from position "
                                + (i + 1)
                                + " to "
                                + (at + 1)
                                + " (add columns after the last one only)";
            } else if (!isColumns.get(at).equals(wasColumns.get(i))) {
                change =
                        "column "
                                + a[0]
                                + " changed from "
                                + a[1]
                                + " to "
                                + isColumns.get(at).split("\t", 2)[1];
            }
        }
        for (int i = wasColumns.size(); change == null && i < isColumns.size(); i++) {
            if (isColumns.get(i).endsWith(" NOT NULL")) {
                change =
                        "column "
                                + isColumns.get(i).split("\t", 2)[0]
                                + " was added as NOT NULL (an added column is null in every"
                                + " stored row: declare it nullable)";
            }
        }
        // the clauses last: a dropped or retyped column is named as such, not by a clause
        change = change != null ? change : clauses(wasHead, isHead, wasColumns);
        if (change == null) {
            return new Verdict(wasColumns.size(), null);
        }
        return new Verdict(
                wasColumns.size(),
                "Flow "
                        + flow
                        + " cannot restore its state: "
                        + change
                        + " since the savepoint was taken. The state was written for:\n  "
                        + String.join("\n  ", was).replace('\t', ' ')
                        + "\nEither restore it with the flow file it was taken with, or start "
                        + flow
                        + " as a new flow: give it another name (its operators get new uids),"
                        + " clear its target, read its source from the start, and run once with"
                        + " --allowNonRestoredState so that the old state is dropped"
                        + " (docs/reliability.md, schema changes).");
    }

    /**
     * The first change of TRACK HISTORY, IGNORE NULL UPDATES or COLUMNS TO UPDATE between two
     * heads, over the stored columns; null when none (or when the stored head predates the line).
     */
    private static String clauses(List<String> was, List<String> is, List<String> storedColumns) {
        List<String> stored = new ArrayList<>();
        for (String c : storedColumns) {
            stored.add(c.split("\t", 2)[0]);
        }
        String a = line(was, COLUMNS_TO_UPDATE);
        String b = line(is, COLUMNS_TO_UPDATE);
        if (a != null && b != null && !a.equals(b)) {
            return "COLUMNS TO UPDATE was " + (a.endsWith("yes") ? "removed" : "added");
        }
        String tracking = changedColumns(was, is, UNTRACKED, stored);
        if (tracking != null) {
            return "TRACK HISTORY changed: " + tracking;
        }
        String nulls = changedColumns(was, is, IGNORE_NULL, stored);
        return nulls == null ? null : "IGNORE NULL UPDATES changed: " + nulls;
    }

    /** Which stored column a list line gained or lost ("v is now in the list"), or null. */
    private static String changedColumns(
            List<String> was, List<String> is, String prefix, List<String> stored) {
        String a = line(was, prefix);
        String b = line(is, prefix);
        if (a == null || b == null) {
            return null;
        }
        List<String> before = List.of(value(prefix, a).split(", "));
        List<String> now = List.of(value(prefix, b).split(", "));
        for (String c : stored) {
            if (before.contains(c) != now.contains(c)) {
                // a listed column is untracked, or skipped when null
                boolean roleNow = prefix.equals(UNTRACKED) != now.contains(c);
                String role = prefix.equals(UNTRACKED) ? "tracked" : "skipped when null";
                return "column "
                        + c
                        + (roleNow ? " was not " : " was ")
                        + role
                        + (roleNow ? " and is" : " and is not");
            }
        }
        return null;
    }

    private static String what(String prefix, String was, String is) {
        String name =
                switch (prefix) {
                    case "target " -> "the target type (STORED AS)";
                    case "keys " -> "the KEYS";
                    case "sequence " -> "the SEQUENCE BY type";
                    default -> "the SYSTEM SEQUENCE BY type";
                };
        return name + " changed from " + value(prefix, was) + " to " + value(prefix, is);
    }

    private static String value(String prefix, String line) {
        return line == null ? "none" : line.substring(prefix.length());
    }

    private static String line(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
    }

    private static List<String> columns(List<String> lines) {
        return lines.stream()
                .filter(l -> l.startsWith("column "))
                .map(l -> l.substring("column ".length()))
                .collect(Collectors.toList());
    }

    private static int indexOf(List<String> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).split("\t", 2)[0].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
