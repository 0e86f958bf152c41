package dev.autocdc.job.flow;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Where a flow file comes from: a plain path (relative to the working directory, as a mounted
 * ConfigMap gives) or any URI of a Flink file system ({@code file://}, and with Flink's file-system
 * plugins {@code s3://}, {@code hdfs://}, ...), read through Flink's {@link FileSystem} so that a
 * cluster's plugins and credentials apply.
 */
public final class FlowFile {
    private FlowFile() {}

    /**
     * Checks that the location names a readable file.
     *
     * @throws IllegalArgumentException naming the location and what is wrong with it
     */
    public static void check(String location) {
        FileStatus status;
        try {
            Path path = new Path(location);
            status = path.getFileSystem().getFileStatus(path);
        } catch (java.io.FileNotFoundException e) {
            throw new IllegalArgumentException(
                    "cannot read the flow file " + location + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot read the flow file "
                            + location
                            + ": "
                            + e.getMessage()
                            + (location.contains("://") && !location.startsWith("file:")
                                    ? " (a scheme other than file:// needs its Flink file-system"
                                            + " plugin, see docs/deploy.md)"
                                    : ""));
        }
        if (status.isDir()) {
            throw new IllegalArgumentException(
                    "the flow file " + location + " is a directory; name a .sql file in it");
        }
    }

    /** The file's text, as UTF-8. */
    public static String read(String location) throws IOException {
        Path path = new Path(location);
        try (InputStream in = path.getFileSystem().open(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The file's name, without its directories: for the job's name. */
    public static String name(String location) {
        return new Path(location).getName();
    }
}
