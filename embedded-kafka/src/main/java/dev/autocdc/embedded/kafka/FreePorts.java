package dev.autocdc.embedded.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free local ports for servers a test or a local run starts. */
public final class FreePorts {
    private FreePorts() {}

    /**
     * {@code n} distinct ports free now: every socket stays bound until all are chosen, so the OS
     * cannot hand out one port twice (as two one-socket-at-a-time choices may).
     */
    public static int[] of(int n) {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            close(sockets);
        }
    }

    private static void close(ServerSocket[] sockets) {
        for (ServerSocket s : sockets) {
            if (s == null) {
                continue;
            }
            try {
                s.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
