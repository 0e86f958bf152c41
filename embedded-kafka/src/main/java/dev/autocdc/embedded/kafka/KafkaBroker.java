package dev.autocdc.embedded.kafka;

import java.util.concurrent.CountDownLatch;

/**
 * {@code deploy/autocdc kafka [--port P]}: the in-JVM broker as a process of its own, in the
 * foreground, for a local cluster's flows (examples/employees_kafka.sql reads localhost:9092). It
 * prints its bootstrap address once it takes requests and runs until it is stopped (Ctrl-C or
 * SIGTERM), when it shuts down and deletes its data: nothing it held survives it.
 */
public final class KafkaBroker {
    private KafkaBroker() {}

    public static void main(String[] args) throws Exception {
        int port = 9092;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: deploy/autocdc kafka [--port P]  (P: 9092 by default)");
                System.exit(2);
            }
        }
        EmbeddedKafka kafka = EmbeddedKafka.start(port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    kafka.close();
                                    System.out.println("kafka: stopped");
                                    stopped.countDown();
                                }));
        System.out.println("kafka: broker at " + kafka.bootstrapServers() + " (Ctrl-C stops it)");
        System.out.flush();
        stopped.await();
    }
}
