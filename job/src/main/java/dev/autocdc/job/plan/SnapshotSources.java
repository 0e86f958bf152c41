package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.source.SnapshotWatermark;
import dev.autocdc.job.source.SourceDecoding;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;

/**
 * What a flow from snapshots needs of its source (semantics §10), checked when it is planned: a
 * source that never ends must complete its snapshots by a watermark on the version (declared by the
 * decoding step, or by the user on a source read as declared), and never by an idle timeout, which
 * would complete a half-delivered snapshot and delete keys.
 */
final class SnapshotSources {
    private SnapshotSources() {}

    static void check(
            StreamTableEnvironment tEnv,
            AutoCdcFlow flow,
            ResolvedSchema source,
            SourceDecoding.Decoded decoded) {
        Duration idle = tEnv.getConfig().get(ExecutionConfigOptions.TABLE_EXEC_SOURCE_IDLE_TIMEOUT);
        if (idle != null && !idle.isZero()) {
            throw refused(
                    flow,
                    "'table.exec.source.idle-timeout' is "
                            + idle
                            + ": a split that idles would complete a half-delivered snapshot and"
                            + " delete its keys; remove the setting (end rows complete a snapshot"
                            + " at once)");
        }
        Map<String, String> options = SourceDecoding.options(tEnv, flow.source());
        if (options == null || !SnapshotWatermark.unbounded(options)) {
            return; // bounded (complete at its end), or a view: the user's watermark, if any
        }
        if (options.containsKey("scan.watermark.idle-timeout")) {
            throw refused(
                    flow,
                    "source "
                            + flow.source()
                            + " sets 'scan.watermark.idle-timeout': a split that idles would"
                            + " complete a half-delivered snapshot; remove the option");
        }
        // read as bytes: the decoding step's watermark (the source's own is not carried over);
        // read as declared: the source's
        boolean timed =
                decoded != null
                        ? decoded.snapshotWatermark()
                        : !source.getWatermarkSpecs().isEmpty();
        if (!timed) {
            throw refused(
                    flow,
                    "source "
                            + flow.source()
                            + " never ends, and its snapshots cannot be timed, so none would ever"
                            + " complete: use a version of type INT, BIGINT, DATE or TIMESTAMP on a"
                            + " Kafka source or a JSON file source read by the flow, read it"
                            + " bounded ('scan.bounded.mode', or no 'source.monitor-interval'),"
                            + " or declare WATERMARK FOR on the version ('jdbc-snapshots': a"
                            + " read-time metadata column, WATERMARK FOR it AS SOURCE_WATERMARK();"
                            + " docs/snapshots.md)");
        }
    }

    private static FlowSyntaxException refused(AutoCdcFlow flow, String message) {
        return new FlowSyntaxException(flow.line(), "FROM SNAPSHOT", message);
    }
}
