package dev.autocdc.job.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotWatermarkTest {

    @Test
    void theTimeColumnNeverTakesASourceColumnsName() {
        assertThat(SnapshotWatermark.timeColumn("__", List.of("id", "__raw")))
                .isEqualTo("__snapshot_time");
        assertThat(SnapshotWatermark.timeColumn("__", List.of("id", "__SNAPSHOT_TIME", "__raw")))
                .isEqualTo("__snapshot_time_");
        assertThat(
                        SnapshotWatermark.timeColumn(
                                "__autocdc_",
                                List.of("__autocdc_snapshot_time", "__snapshot_time_")))
                .isEqualTo("__autocdc_snapshot_time_");
    }

    @Test
    void aRowsWatermarkIsJustBelowItsTimeAndAnEndRowsAtIt() {
        SnapshotWatermark plain = new SnapshotWatermark("day", null);
        assertThat(plain.watermarkExpression("__snapshot_time"))
                .isEqualTo("`__snapshot_time` - INTERVAL '0.001' SECOND");
        SnapshotWatermark ends = new SnapshotWatermark("day", "`is_end`");
        assertThat(ends.watermarkExpression("t"))
                .isEqualTo(
                        "CASE WHEN (`is_end`) IS TRUE THEN `t` ELSE `t` - INTERVAL '0.001' SECOND"
                                + " END");
    }
}
