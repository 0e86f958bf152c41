package dev.autocdc.job.cli;

/**
 * {@code deploy/autocdc}'s entry point: the CLI on an embedded Flink with local defaults, its exit
 * code the process's. Never the main class of a jar a cluster runs ({@link AutoCdcCli#main} is):
 * there {@code System.exit} would end the JobManager.
 */
public final class LocalLauncher {
    private LocalLauncher() {}

    public static void main(String[] args) {
        System.exit(new AutoCdcCli(System.out, System.err).run(args));
    }
}
