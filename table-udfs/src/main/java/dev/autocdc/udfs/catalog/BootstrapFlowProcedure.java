package dev.autocdc.udfs.catalog;

import dev.autocdc.job.ops.BootstrapRun;
import dev.autocdc.job.ops.BootstrapSources;
import dev.autocdc.job.ops.BootstrapWords;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/**
 * {@code CALL autocdc.sys.bootstrap_flow('<flow text or file>', '<[FLOW=]TABLE>[; ...]',
 * '<savepoint directory>'[, '<as-of SQL>'])}: {@code autocdc bootstrap} from the SQL client. It
 * reads each stored history into its flow's state and writes a savepoint, in a batch job on the
 * session's cluster and with its settings, and returns what it loaded and how to start the flows
 * from it, a row per line. The savepoint directory must be one the cluster and the client both
 * reach (it is read back to check every key was written).
 */
public final class BootstrapFlowProcedure implements Procedure {
    public static final String NAME = "bootstrap_flow";

    public String[] call(ProcedureContext context, String flow, String from, String savepoint)
            throws Exception {
        return call(context, flow, from, savepoint, null);
    }

    public String[] call(
            ProcedureContext context, String flow, String from, String savepoint, String asOf)
            throws Exception {
        if (flow == null || from == null || savepoint == null) {
            throw new IllegalArgumentException(
                    "bootstrap_flow takes the flow, the stored histories ('[FLOW=]TABLE[; ...]')"
                            + " and the savepoint directory; one of them is NULL");
        }
        StreamExecutionEnvironment planning = context.getExecutionEnvironment();
        Configuration session = Configuration.fromMap(planning.getConfiguration().toMap());
        // the bootstrap writes a new savepoint: it restores from none, whatever the session says
        session.removeConfig(StateRecoveryOptions.SAVEPOINT_PATH);
        String uri = BootstrapSources.savepointUri(savepoint, BootstrapWords.PROCEDURE);
        List<String> tables = new ArrayList<>();
        for (String f : from.split(";")) {
            if (!f.isBlank()) {
                tables.add(f.strip());
            }
        }
        // the State Processor API looks up the bootstrap's functions through the thread's class
        // loader, which in a gateway's session is not the one that loaded this jar
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(BootstrapFlowProcedure.class.getClassLoader());
        try {
            return BootstrapRun.run(
                            new Environments(planning, session),
                            FlowText.script(flow),
                            tables,
                            asOf,
                            savepoint,
                            null,
                            BootstrapWords.PROCEDURE,
                            "SET 'execution.state-recovery.path' = '"
                                    + uri.replace("'", "''")
                                    + "'; CALL autocdc.sys.run_flow(...)")
                    .toArray(String[]::new);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /**
     * The session's environment to plan in, then a new one with its settings (its cluster, its jars
     * and this jar), made as Flink makes a procedure's, for the batch job that writes the
     * savepoint, so that the session's own stays in streaming mode.
     */
    private static final class Environments implements Supplier<StreamExecutionEnvironment> {
        private StreamExecutionEnvironment next;
        private final Configuration session;

        Environments(StreamExecutionEnvironment planning, Configuration session) {
            this.next = planning;
            this.session = session;
        }

        @Override
        public StreamExecutionEnvironment get() {
            StreamExecutionEnvironment env = next;
            if (env == null) {
                Configuration conf = new Configuration(session);
                // a gateway's sessions submit detached; the bootstrap waits for its counts
                conf.set(DeploymentOptions.ATTACHED, true);
                env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
                RunFlowProcedure.shipThisJar(env);
            }
            next = null;
            return env;
        }
    }
}
