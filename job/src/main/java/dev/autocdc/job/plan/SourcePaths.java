package dev.autocdc.job.plan;

import java.io.File;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Checks that the {@code 'path'} of each filesystem table a flow reads ({@link ReadTables}) exists
 * where the flow is planned, also for a watched directory ({@code 'source.monitor-interval'}):
 * Flink's filesystem source fails on a path that does not exist, after the job has started, with a
 * stack trace that names neither the table nor the flow. A missing path fails on the table's line,
 * naming it and the fix. A path on a file system Flink cannot open here (a scheme without its
 * plugin) or cannot ask is left to the source.
 */
final class SourcePaths {
    private SourcePaths() {}

    /** Checks the tables {@code flow} reads. */
    static void check(List<ReadTables.ReadTable> tables, String flow) {
        for (ReadTables.ReadTable t : tables) {
            String path = t.options().get("path");
            if ("filesystem".equals(t.options().get("connector")) && path != null) {
                check(t, path, flow);
            }
        }
    }

    private static void check(ReadTables.ReadTable t, String written, String flow) {
        Path path = new Path(written);
        FileSystem fs;
        try {
            fs = path.getFileSystem();
            if (fs.exists(path)) {
                return;
            }
        } catch (IOException | RuntimeException unknowable) {
            return;
        }
        boolean local = "file".equals(fs.getUri().getScheme());
        String where = local ? new File(path.toUri().getPath()).getAbsolutePath() : written;
        boolean watched = t.options().containsKey("source.monitor-interval");
        StringBuilder m =
                new StringBuilder("'path' = '")
                        .append(written)
                        .append("' does not exist")
                        .append(local && !path.isAbsolute() ? " (read as " + where + ")" : "")
                        .append("; flow ")
                        .append(flow)
                        .append(" reads this table. ");
        if (watched) {
            m.append("Create the directory before the run")
                    .append(local ? " (mkdir -p " + where + ")" : "")
                    .append(
                            ": Flink's filesystem source fails on a directory that does not"
                                    + " exist, also one it watches ('source.monitor-interval')");
        } else {
            m.append("Correct 'path' (a relative path is read from the directory the command runs")
                    .append(" in), or create the file or directory before the run");
        }
        throw t.error(m.toString());
    }
}
