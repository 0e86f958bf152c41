package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** AS_OF's time texts, read as each history column type. */
class TimeLiteralTest {

    @Test
    void readsEachTypesLiteralForm() {
        assertThat(TimeLiteral.parse("2025-02-15", new DateType()))
                .isEqualTo(LocalDate.of(2025, 2, 15));
        LocalDateTime t = LocalDateTime.of(2025, 3, 10, 9, 30);
        assertThat(TimeLiteral.parse("2025-03-10 09:30:00", new TimestampType(0))).isEqualTo(t);
        assertThat(TimeLiteral.parse("2025-03-10T09:30", new TimestampType(3))).isEqualTo(t);
        assertThat(TimeLiteral.parse("2025-03-10", new TimestampType(3)))
                .isEqualTo(LocalDate.of(2025, 3, 10).atStartOfDay());
        Instant i = Instant.parse("2025-03-10T09:30:00Z");
        assertThat(TimeLiteral.parse("2025-03-10T09:30:00Z", new LocalZonedTimestampType(3)))
                .isEqualTo(i);
        assertThat(TimeLiteral.parse("2025-03-10 09:30:00Z", new LocalZonedTimestampType(3)))
                .isEqualTo(i);
        assertThat(TimeLiteral.parse("2025-03-10 09:30:00 Z", new LocalZonedTimestampType(3)))
                .isEqualTo(i);
        assertThat(TimeLiteral.parse("2025-03-10 10:30:00+01:00", new LocalZonedTimestampType(3)))
                .isEqualTo(i);
        assertThat(TimeLiteral.parse(" 5 ", new IntType())).isEqualTo(5);
        assertThat(TimeLiteral.parse("5000000000", new BigIntType())).isEqualTo(5_000_000_000L);
        assertThat(TimeLiteral.parse("1.50", new DecimalType(5, 2)))
                .isEqualTo(new BigDecimal("1.50"));
        assertThat(TimeLiteral.parse("b", VarCharType.STRING_TYPE)).isEqualTo("b");
    }

    @Test
    void refusesTextThatDoesNotReadAsTheType() {
        assertThatThrownBy(() -> TimeLiteral.parse("Feb 15", new DateType()))
                .hasMessage("'Feb 15' does not read as DATE (e.g. '2025-02-15')");
        assertThatThrownBy(
                        () ->
                                TimeLiteral.parse(
                                        "2025-03-10 09:30:00", new LocalZonedTimestampType(3)))
                .hasMessageContaining("an instant with its offset, e.g. '2025-03-10T00:00:00Z'");
        assertThatThrownBy(() -> TimeLiteral.parse("5.5", new IntType()))
                .hasMessageContaining("does not read as INT");
    }
}
