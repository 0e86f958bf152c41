package dev.autocdc.job.cli;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes to two streams: the cluster entry point's stderr goes to the process's and into the
 * message of the exception that fails the job.
 */
final class TeeOutputStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeOutputStream(OutputStream a, OutputStream b) {
        this.a = a;
        this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
        a.write(c);
        b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws IOException {
        a.write(bytes, off, len);
        b.write(bytes, off, len);
    }

    @Override
    public void flush() throws IOException {
        a.flush();
        b.flush();
    }
}
