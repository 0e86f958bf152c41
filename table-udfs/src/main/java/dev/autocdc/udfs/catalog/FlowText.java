package dev.autocdc.udfs.catalog;

import dev.autocdc.job.flow.EnvReferences;
import dev.autocdc.job.flow.FlowFile;
import dev.autocdc.job.flow.FlowScript;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * A procedure's flow argument: the flow file's text itself, or where it is (a path or a Flink
 * file-system URI, as {@code autocdc run --flow} takes it), its {@code ${env:NAME}} references
 * resolved from the environment of the process that plans it.
 */
final class FlowText {
    /** Text that holds a statement, not a location. */
    private static final Pattern STATEMENT = Pattern.compile("(?is).*\\b(CREATE|SET|INSERT)\\b.*");

    private FlowText() {}

    static FlowScript script(String textOrLocation) throws IOException {
        String text =
                STATEMENT.matcher(textOrLocation).matches()
                        ? textOrLocation
                        : FlowFile.read(textOrLocation);
        return FlowScript.parse(EnvReferences.resolve(text, System.getenv()).text());
    }

    /** A name for the flows' job: its file's, or a name for flows given as text. */
    static String jobName(String textOrLocation) {
        return "AUTO CDC "
                + (STATEMENT.matcher(textOrLocation).matches()
                        ? "flows from SQL"
                        : FlowFile.name(textOrLocation));
    }
}
