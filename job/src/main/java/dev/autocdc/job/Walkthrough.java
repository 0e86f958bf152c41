package dev.autocdc.job;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.AutoCdcFunction;
import dev.autocdc.operators.flink.EngineSpec;
import dev.autocdc.operators.flink.FlowKeySelector;
import dev.autocdc.operators.flink.TypeMapping;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Runs the reference walkthroughs (users SCD1/SCD2, employees bitemporal, company A) through the AUTO
 * CDC operator as local Flink jobs on the RocksDB state backend, and prints the target table after each
 * step. Each step replays all the events so far, in the references' arrival order, through a fresh
 * bounded job and materializes its changelog. (The streaming demo on Kafka replaces this with the job.)
 */
public final class Walkthrough {

    private Walkthrough() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(runAndCheck(System.out) ? 0 : 1);
    }

    private static PrintStream out = System.out;
    private static final List<String> MISMATCHES = new ArrayList<>();

    /**
     * Runs every walkthrough, prints each table and checks it against the table the references print
     * (on the columns they print). Returns whether every table matched.
     */
    public static synchronized boolean runAndCheck(PrintStream printTo) throws Exception {
        out = printTo;
        MISMATCHES.clear();
        users();
        employees();
        companyA();
        if (MISMATCHES.isEmpty()) {
            out.println("\nEvery table equals the reference.");
            return true;
        }
        out.println("\nThese tables differ from the reference: " + String.join("; ", MISMATCHES));
        return false;
    }

    /** Compares the printed rows, projected on {@code columns}, with the reference's rows ("a|b|c"). */
    private static void check(String title, EngineSpec spec, List<Object[]> rows, Predicate<Object[]> filter,
                              int[] columns, String... expected) {
        List<String> actual = new ArrayList<>();
        for (Object[] r : rows) {
            if (filter.test(r)) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < columns.length; i++) {
                    Object v = r[columns[i]];
                    b.append(i > 0 ? "|" : "").append(v instanceof LocalDateTime ? v.toString().replace('T', ' ') : String.valueOf(v));
                }
                actual.add(b.toString());
            }
        }
        List<String> want = new ArrayList<>(List.of(expected));
        java.util.Collections.sort(actual);
        java.util.Collections.sort(want);
        if (actual.equals(want)) {
            out.println("   matches the reference");
        } else {
            out.println("   DIFFERS from the reference, which has:");
            for (String w : expected) {
                out.println("     " + w.replace("|", " | "));
            }
            MISMATCHES.add(title);
        }
    }

    private static void users() throws Exception {
        RowType input = RowType.of(new LogicalType[] {new IntType(), VarCharType.STRING_TYPE, VarCharType.STRING_TYPE,
                new IntType(), new BooleanType()}, new String[] {"userId", "name", "city", "__seq", "__delete"});
        List<Object[]> feed = List.of(
                new Object[] {124, "Raul", "Oaxaca", 1, false},
                new Object[] {123, "Isabel", "Monterrey", 1, false},
                new Object[] {125, "Mercedes", "Tijuana", 2, false},
                new Object[] {126, "Lily", "Cancun", 2, false},
                new Object[] {123, null, null, 6, true},
                new Object[] {125, "Mercedes", "Guadalajara", 6, false},
                new Object[] {125, "Mercedes", "Mexicali", 5, false},
                new Object[] {123, "Isabel", "Chihuahua", 5, false});
        for (TargetType type : List.of(TargetType.SCD1, TargetType.SCD2)) {
            EngineSpec spec = EngineSpec.builder("users_" + type.name().toLowerCase(), type, input).keys("userId").build();
            String title = "users, STORED AS " + (type == TargetType.SCD1 ? "SCD TYPE 1" : "SCD TYPE 2")
                    + " (COLUMNS * EXCEPT (operation, sequenceNum))";
            List<Object[]> table = run(spec, feed);
            print(title, spec, table, r -> true);
            if (type == TargetType.SCD1) {
                check(title, spec, table, r -> true, new int[] {0, 1, 2},
                        "124|Raul|Oaxaca", "125|Mercedes|Guadalajara", "126|Lily|Cancun");
            } else {
                check(title, spec, table, r -> true, new int[] {0, 1, 2, 3, 4},
                        "123|Isabel|Monterrey|1|5", "123|Isabel|Chihuahua|5|6", "124|Raul|Oaxaca|1|null",
                        "125|Mercedes|Tijuana|2|5", "125|Mercedes|Mexicali|5|6", "125|Mercedes|Guadalajara|6|null",
                        "126|Lily|Cancun|2|null");
            }
        }
    }

    private static void employees() throws Exception {
        RowType input = RowType.of(new LogicalType[] {new IntType(), VarCharType.STRING_TYPE, VarCharType.STRING_TYPE,
                new DateType(), new TimestampType(0), new DateType(), new TimestampType(0), new BooleanType()},
                new String[] {"employeeId", "name", "role", "effectiveDate", "recordedAt", "__seq", "__sys", "__delete"});
        EngineSpec spec = EngineSpec.builder("employees_bitemporal", TargetType.BITEMPORAL, input).keys("employeeId")
                .sequenceColumns("effectiveDate", "recordedAt").build();
        List<Object[]> events = new ArrayList<>();
        String[] steps = {"step 2: initial load", "step 3: in-order update", "step 4: out-of-order update",
                "step 5: correction"};
        Object[][][] stepEvents = {
                {employee(1, "Chris", "Owner", "2025-01-01", "2025-01-02T09:00", false),
                 employee(2, "Dana", "Engineer", "2025-01-01", "2025-01-02T09:00", false)},
                {employee(1, "Chris", "Manager", "2025-03-01", "2025-03-01T09:00", false)},
                {employee(1, "Chris", "Team Lead", "2025-02-01", "2025-03-15T09:00", false)},
                {employee(2, "Dana", "Analyst", "2025-01-01", "2025-04-01T09:00", false)}};
        String[][] expected = {
                {"1|Chris|Owner|2025-01-01|null|2025-01-02 09:00|null",
                 "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00|null"},
                {"1|Chris|Owner|2025-01-01|null|2025-01-02 09:00|2025-03-01 09:00",
                 "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00|null",
                 "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00|null",
                 "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00|null"},
                {"1|Chris|Owner|2025-01-01|null|2025-01-02 09:00|2025-03-01 09:00",
                 "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00|2025-03-15 09:00",
                 "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00|null",
                 "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00|null",
                 "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00|null",
                 "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00|null"},
                {"1|Chris|Owner|2025-01-01|null|2025-01-02 09:00|2025-03-01 09:00",
                 "1|Chris|Owner|2025-01-01|2025-03-01|2025-03-01 09:00|2025-03-15 09:00",
                 "1|Chris|Owner|2025-01-01|2025-02-01|2025-03-15 09:00|null",
                 "1|Chris|Team Lead|2025-02-01|2025-03-01|2025-03-15 09:00|null",
                 "1|Chris|Manager|2025-03-01|null|2025-03-01 09:00|null",
                 "2|Dana|Engineer|2025-01-01|null|2025-01-02 09:00|2025-04-01 09:00",
                 "2|Dana|Analyst|2025-01-01|null|2025-04-01 09:00|null"}};
        int[] printed = {0, 1, 2, 5, 6, 7, 8};
        List<Object[]> table = null;
        for (int s = 0; s < steps.length; s++) {
            events.addAll(Arrays.asList(stepEvents[s]));
            table = run(spec, events);
            String title = "employees, STORED AS BITEMPORAL, " + steps[s];
            print(title, spec, table, r -> true);
            check(title, spec, table, r -> true, printed, expected[s]);
        }
        int b = 5;
        int e = 6;
        int ss = 7;
        int se = 8;
        List<Object[]> step5 = table;
        Predicate<Object[]> current = r -> r[e] == null && r[se] == null;
        String q1 = "after step 5: current state (__END_AT IS NULL AND __SYSTEM_END_AT IS NULL)";
        print(q1, spec, step5, current);
        check(q1, spec, step5, current, new int[] {0, 1, 2}, "1|Chris|Manager", "2|Dana|Analyst");
        String q2 = "after step 5: business history as believed now (__SYSTEM_END_AT IS NULL)";
        print(q2, spec, step5, r -> r[se] == null);
        check(q2, spec, step5, r -> r[se] == null, new int[] {0, 1, 2, 5, 6}, "1|Chris|Owner|2025-01-01|2025-02-01",
                "1|Chris|Team Lead|2025-02-01|2025-03-01", "1|Chris|Manager|2025-03-01|null", "2|Dana|Analyst|2025-01-01|null");
        LocalDate day = LocalDate.parse("2025-02-15");
        LocalDateTime march10 = LocalDateTime.parse("2025-03-10T00:00");
        String q3 = "after step 5: what did we believe on 2025-03-10 about 2025-02-15";
        Predicate<Object[]> past = r -> asOf(r, b, e, day) && asOf(r, ss, se, march10);
        print(q3, spec, step5, past);
        check(q3, spec, step5, past, new int[] {0, 1, 2}, "1|Chris|Owner", "2|Dana|Engineer");
        String q4 = "after step 5: what do we believe now about 2025-02-15";
        Predicate<Object[]> now = r -> asOf(r, b, e, day) && r[se] == null;
        print(q4, spec, step5, now);
        check(q4, spec, step5, now, new int[] {0, 1, 2}, "1|Chris|Team Lead", "2|Dana|Analyst");
        events.add(employee(1, null, null, "2025-06-30", "2025-06-30T17:00", true));
        String q5 = "employees: delete of Chris at 2025-06-30, recorded 2025-06-30 17:00";
        List<Object[]> deleted = run(spec, events);
        print(q5, spec, deleted, r -> true);
        List<String> afterDelete = new ArrayList<>(List.of(expected[3]));
        afterDelete.remove("1|Chris|Manager|2025-03-01|null|2025-03-01 09:00|null");
        afterDelete.add("1|Chris|Manager|2025-03-01|null|2025-03-01 09:00|2025-06-30 17:00");
        afterDelete.add("1|Chris|Manager|2025-03-01|2025-06-30|2025-06-30 17:00|null");
        check(q5, spec, deleted, r -> true, printed, afterDelete.toArray(new String[0]));
    }

    private static void companyA() throws Exception {
        RowType input = RowType.of(new LogicalType[] {VarCharType.STRING_TYPE, VarCharType.STRING_TYPE,
                new TimestampType(0), new TimestampType(0), new BooleanType()},
                new String[] {"CompanyId", "Data Point", "__seq", "__sys", "__delete"});
        EngineSpec spec = EngineSpec.builder("company", TargetType.BITEMPORAL, input).keys("CompanyId").build();
        Object[][] changes = {
                {"A", "XFv1", LocalDateTime.parse("2025-07-18T10:01:00"), LocalDateTime.parse("2025-07-18T10:05:00"), false},
                {"A", "XFv2", LocalDateTime.parse("2025-07-18T12:15:43"), LocalDateTime.parse("2025-07-18T12:20:00"), false},
                {"A", "XFv3", LocalDateTime.parse("2025-07-18T12:05:00"), LocalDateTime.parse("2025-07-18T12:25:00"), false},
                {"A", "XFv2", LocalDateTime.parse("2025-07-18T12:30:00"), LocalDateTime.parse("2025-07-18T12:30:00"), true}};
        String[] names = {"insert", "update", "out-of-order update", "delete"};
        String v1Open = "A|XFv1|2025-07-18 10:01|null|2025-07-18 10:05|";
        String[][] expected = {
                {v1Open + "null"},
                {v1Open + "2025-07-18 12:20", "A|XFv1|2025-07-18 10:01|2025-07-18 12:15:43|2025-07-18 12:20|null",
                 "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20|null"},
                {v1Open + "2025-07-18 12:20", "A|XFv1|2025-07-18 10:01|2025-07-18 12:15:43|2025-07-18 12:20|2025-07-18 12:25",
                 "A|XFv1|2025-07-18 10:01|2025-07-18 12:05|2025-07-18 12:25|null",
                 "A|XFv3|2025-07-18 12:05|2025-07-18 12:15:43|2025-07-18 12:25|null",
                 "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20|null"},
                {v1Open + "2025-07-18 12:20", "A|XFv1|2025-07-18 10:01|2025-07-18 12:15:43|2025-07-18 12:20|2025-07-18 12:25",
                 "A|XFv1|2025-07-18 10:01|2025-07-18 12:05|2025-07-18 12:25|null",
                 "A|XFv3|2025-07-18 12:05|2025-07-18 12:15:43|2025-07-18 12:25|null",
                 "A|XFv2|2025-07-18 12:15:43|null|2025-07-18 12:20|2025-07-18 12:30",
                 "A|XFv2|2025-07-18 12:15:43|2025-07-18 12:30|2025-07-18 12:30|null"}};
        List<Object[]> events = new ArrayList<>();
        for (int i = 0; i < changes.length; i++) {
            events.add(changes[i]);
            String title = "company A, change " + (i + 1) + ": " + names[i];
            List<Object[]> table = run(spec, events);
            print(title, spec, table, r -> true);
            check(title, spec, table, r -> true, new int[] {0, 1, 2, 3, 4, 5}, expected[i]);
        }
    }

    private static Object[] employee(int id, String name, String role, String date, String recorded, boolean delete) {
        LocalDate d = LocalDate.parse(date);
        LocalDateTime t = LocalDateTime.parse(recorded);
        return new Object[] {id, name, role, d, t, d, t, delete};
    }

    @SuppressWarnings("unchecked")
    private static boolean asOf(Object[] row, int start, int end, Comparable<?> at) {
        Comparable<Object> s = (Comparable<Object>) row[start];
        Comparable<Object> e = (Comparable<Object>) row[end];
        return s.compareTo(at) <= 0 && (e == null || e.compareTo(at) > 0);
    }

    /** Runs the events through a bounded local Flink job and returns the materialized target table. */
    static List<Object[]> run(EngineSpec spec, List<Object[]> events) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", "rocksdb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        RowType inputType = spec.inputType();
        List<RowData> rows = new ArrayList<>();
        for (Object[] values : events) {
            GenericRowData row = new GenericRowData(values.length);
            for (int i = 0; i < values.length; i++) {
                row.setField(i, TypeMapping.toInternal(inputType.getTypeAt(i), values[i]));
            }
            rows.add(row);
        }
        RowType target = spec.targetType();
        Iterator<RowData> changelog = env.fromData(rows, InternalTypeInfo.of(inputType))
                .keyBy(new FlowKeySelector(spec))
                .process(new AutoCdcFunction(spec))
                .returns(InternalTypeInfo.of(target))
                .uid("auto-cdc-" + spec.flow().name())
                .executeAndCollect("walkthrough " + spec.flow().name());
        Map<List<Object>, Object[]> table = new LinkedHashMap<>();
        int[] pk = spec.targetPrimaryKey();
        while (changelog.hasNext()) {
            RowData r = changelog.next();
            Object[] values = new Object[target.getFieldCount()];
            for (int f = 0; f < values.length; f++) {
                LogicalType t = target.getTypeAt(f);
                values[f] = TypeMapping.toJava(t, RowData.createFieldGetter(t, f).getFieldOrNull(r));
            }
            List<Object> key = new ArrayList<>();
            for (int i : pk) {
                key.add(values[i]);
            }
            switch (r.getRowKind()) {
                case INSERT:
                case UPDATE_AFTER:
                    table.put(key, values);
                    break;
                default:
                    table.remove(key);
            }
        }
        List<Object[]> out = new ArrayList<>(table.values());
        out.sort(rowOrder(pk));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Comparator<Object[]> rowOrder(int[] pk) {
        return (a, b) -> {
            for (int i : pk) {
                int c = ((Comparable<Object>) a[i]).compareTo(b[i]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }

    private static void print(String title, EngineSpec spec, List<Object[]> rows, Predicate<Object[]> filter) {
        List<String> header = spec.targetType().getFieldNames();
        List<String[]> cells = new ArrayList<>();
        for (Object[] r : rows) {
            if (filter.test(r)) {
                String[] c = new String[r.length];
                for (int i = 0; i < r.length; i++) {
                    c[i] = r[i] instanceof LocalDateTime
                            ? r[i].toString().replace('T', ' ') : String.valueOf(r[i]);
                }
                cells.add(c);
            }
        }
        int[] width = new int[header.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = header.get(i).length();
            for (String[] c : cells) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder b = new StringBuilder("\n== ").append(title).append('\n');
        appendLine(b, header.toArray(new String[0]), width);
        for (String[] c : cells) {
            appendLine(b, c, width);
        }
        out.print(b);
    }

    private static void appendLine(StringBuilder b, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            b.append(String.format("%-" + width[i] + "s", cells[i])).append(i + 1 < cells.length ? " | " : "\n");
        }
    }
}
