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
    void thePreScanSkipsOnlyRecordsThatCannotBeInexact() {
        ExactNumbers n = ExactNumbers.of("json", false, COLUMNS); // TINYINT: 2 safe digits
        assertThat(n.mayBeInexact(bytes("{\"t\": 12, \"name\": \"Steve\"}"))).isFalse();
        assertThat(n.mayBeInexact(bytes("{\"t\": 128}"))).isTrue();
        assertThat(n.mayBeInexact(bytes("{\"i\": 1.5}"))).isTrue();
        assertThat(n.mayBeInexact(bytes("{\"i\": 1e2}"))).isTrue();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
