package dev.autocdc.job.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** Each rule of {@link ExactNumbers} on literals typed by hand, and its byte pre-scan. */
class ExactNumbersTest {
    private static final RowType COLUMNS =
            RowType.of(
                    new LogicalType[] {
                        new TinyIntType(),
                        new SmallIntType(),
                        new IntType(),
                        new BigIntType(),
                        new DecimalType(5, 2),
                        new VarCharType(VarCharType.MAX_LENGTH)
                    },
                    new String[] {"t", "s", "i", "b", "d", "name"});

    private static String json(String record) throws Exception {
        return ExactNumbers.of("json", false, COLUMNS)
                .check(record.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void exactValuesPass() throws Exception {
        assertThat(
                        json(
                                "{\"t\": 127, \"s\": -32768, \"i\": 2147483647, \"b\":"
                                    + " 9223372036854775807, \"d\": 999.99, \"name\": \"1.5e9\"}"))
                .isNull();
        assertThat(json("{\"t\": 1.0, \"i\": 1e2, \"d\": \"2.25\", \"b\": \"42\"}")).isNull();
        assertThat(json("{\"i\": null, \"d\": \"x.\"}")).as("not a number: the format's").isNull();
    }

    @Test
    void eachInexactCaseIsNamed() throws Exception {
        assertThat(json("{\"i\": 22.7}"))
                .isEqualTo("column i (INT) cannot hold 22.7 exactly: it has a fraction");
        assertThat(json("{\"t\": 128}"))
                .isEqualTo("column t (TINYINT) cannot hold 128 exactly: it is outside -128 to 127");
        assertThat(json("{\"i\": 3e9}")).contains("it is outside -2147483648 to 2147483647");
        assertThat(json("{\"b\": \"9223372036854775808\"}")).contains("it is outside");
        assertThat(json("{\"b\": 1e1000000}")).contains("it is outside");
        assertThat(json("{\"b\": 9007199254740993.0}"))
                .as("Flink reads it through a double: 9007199254740992")
                .contains("read through a double");
        assertThat(json("[{\"i\": 1}, {\"i\": 2.5}]")).contains("cannot hold 2.5");
        assertThat(json("{\"d\": 1.234}"))
                .isEqualTo(
                        "column d (DECIMAL(5, 2)) cannot hold 1.234 exactly: it has more than 2"
                                + " digits after the point");
        assertThat(json("{\"d\": 1000}"))
                .isEqualTo(
                        "column d (DECIMAL(5, 2)) cannot hold 1000 exactly: it has more than 3"
                                + " digits before the point");
    }

    @Test
    void debeziumIsCheckedInBeforeAndAfter() throws Exception {
        ExactNumbers dbz = ExactNumbers.of("debezium-json", true, COLUMNS);
        assertThat(
                        dbz.check(
                                "{\"payload\": {\"before\": {\"i\": 1.5}, \"after\": {\"i\": 1}}}"
                                        .getBytes(StandardCharsets.UTF_8)))
                .contains("column i (INT) cannot hold 1.5");
        assertThat(ExactNumbers.of("csv", false, COLUMNS)).isNull();
    }

    @Test
    void theOtherChangelogFormatsAreCheckedWhereTheirRowsAre() throws Exception {
        assertThat(check("ogg-json", "{\"before\": {\"i\": 1}, \"after\": {\"i\": 2.5}}"))
                .contains("column i (INT) cannot hold 2.5");
        assertThat(check("maxwell-json", "{\"data\": {\"i\": 2}, \"old\": {\"d\": 1.234}}"))
                .contains("column d (DECIMAL(5, 2)) cannot hold 1.234");
        // Canal writes values as strings, one object per row in arrays
        assertThat(
                        check(
                                "canal-json",
                                "{\"data\": [{\"i\": \"1\"}, {\"i\": \"3000000000\"}], \"old\":"
                                        + " null}"))
                .contains("column i (INT) cannot hold \"3000000000\" exactly: it is outside");
        assertThat(check("canal-json", "{\"data\": [{\"i\": \"1\", \"d\": \"2.25\"}]}")).isNull();
        assertThat(check("ogg-json", "{\"op_ts\": \"2020-05-13 15:40:06.000000\", \"pos\": 1.5}"))
                .as("fields outside the row images are the format's")
                .isNull();
    }

    private static String check(String format, String record) throws Exception {
        return ExactNumbers.of(format, false, COLUMNS)
                .check(record.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void thePreScanSkipsOnlyRecordsThatCannotBeInexact() {
        ExactNumbers n = ExactNumbers.of("json", false, COLUMNS); // TINYINT: 2 safe digits
        assertThat(n.preScan().mayBeInexact(bytes("{\"t\": 12, \"name\": \"Steve\"}"))).isFalse();
        assertThat(n.preScan().mayBeInexact(bytes("{\"t\": 128}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\": 1.5}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\": 1e2}"))).isTrue();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theKeyAwareScanReadsEachCheckedColumnAgainstItsOwnType() {
        ExactNumbers n = ExactNumbers.of("json", false, COLUMNS);
        // 18 digits fit BIGINT b, though TINYINT t holds 2; digits, points and exponents in other
        // columns' strings and in nested values are no numbers of a checked column
        assertThat(
                        n.preScan()
                                .mayBeInexact(
                                        bytes(
                                                "{\"b\": 123456789012345678, \"name\":"
                                                    + " \"0a3e5.99\", \"x\": 1.5, \"t\": 12, \"n\":"
                                                    + " {\"i\": 1.5}}")))
                .isFalse();
        assertThat(n.preScan().mayBeInexactAnywhere(bytes("{\"b\": 123456789012345678}"))).isTrue();
        // an integer with more digits than always fit, within the column's range: exact
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": 1234567890123456789}"))).isFalse();
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": 9223372036854775807}"))).isFalse();
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": -9223372036854775808}"))).isFalse();
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": 9223372036854775808}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": -9223372036854775809}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"b\": 12345678901234567890}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"t\": 127, \"i\": -2147483648}"))).isFalse();
        assertThat(n.preScan().mayBeInexact(bytes("{\"t\": -129}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\": 2147483648}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\": \"1.5\"}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\": -1E2}"))).isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("{\"i\\u0020\": 1}")))
                .as("an escaped key")
                .isTrue();
        assertThat(n.preScan().mayBeInexact(bytes("[{\"i\": 1.5}]")))
                .as("an array of records")
                .isTrue();
    }

    /**
     * The scan never spares a record the full check refuses: random records of checked and other
     * columns, numbers and strings with points, exponents and long digit runs, nested values,
     * escapes and spacing. Counts how many records each scan spares.
     */
    @Test
    void noRecordTheCheckRefusesIsSpared() throws Exception {
        ExactNumbers n = ExactNumbers.of("json", false, COLUMNS);
        java.util.Random random = new java.util.Random(42);
        String[] keys = {"t", "s", "i", "b", "d", "name", "x", "t2"};
        int refused = 0;
        int sparedByKeys = 0;
        int sparedAnywhere = 0;
        for (int c = 0; c < 20_000; c++) {
            StringBuilder r = new StringBuilder("{");
            int fields = 1 + random.nextInt(5);
            for (int f = 0; f < fields; f++) {
                if (f > 0) {
                    r.append(random.nextBoolean() ? "," : " , ");
                }
                r.append('"').append(keys[random.nextInt(keys.length)]).append("\":");
                r.append(random.nextBoolean() ? " " : "").append(value(random, 0));
            }
            r.append('}');
            byte[] record = bytes(r.toString());
            boolean isRefused = n.check(record) != null;
            refused += isRefused ? 1 : 0;
            if (isRefused) {
                assertThat(n.preScan().mayBeInexact(record)).as(r.toString()).isTrue();
            }
            sparedByKeys += n.preScan().mayBeInexact(record) ? 0 : 1;
            sparedAnywhere += n.preScan().mayBeInexactAnywhere(record) ? 0 : 1;
        }
        System.out.printf(
                "20,000 records: %d refused; spared %d by the key-aware scan, %d by the byte"
                        + " scan%n",
                refused, sparedByKeys, sparedAnywhere);
        assertThat(refused).isGreaterThan(1_000);
        assertThat(sparedByKeys).isGreaterThan(sparedAnywhere);
    }

    private static String value(java.util.Random random, int depth) {
        switch (random.nextInt(depth < 2 ? 7 : 5)) {
            case 0:
                return String.valueOf(random.nextInt(200) - 100);
            case 1:
                return (random.nextBoolean() ? "-" : "")
                        + random.nextInt(1000)
                        + (random.nextBoolean() ? "." + random.nextInt(100) : "")
                        + (random.nextInt(4) == 0 ? "e" + random.nextInt(3) : "");
            case 2:
                return String.valueOf(random.nextLong() >>> random.nextInt(64));
            case 3:
                {
                    String[] texts = {
                        "12", "1.5", "0a3e5", "1e2", "abc", "99999", "a\\u0031b", " 7 "
                    };
                    return '"' + texts[random.nextInt(texts.length)] + '"';
                }
            case 4:
                return random.nextBoolean() ? "null" : "true";
            case 5:
                return "{\"i\": " + value(random, depth + 1) + "}";
            default:
                return "[" + value(random, depth + 1) + ", " + value(random, depth + 1) + "]";
        }
    }
}
