package dev.kiln.operators.fs;

import dev.kiln.index.store.RangeReader;
import java.io.EOFException;
import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;

/**
 * Ranges of one remote file read through Flink's file systems (the root's S3 or HDFS plugin, as the
 * writers upload): one stream kept open and moved with {@code seek}, reopened once when a read fails
 * (an object store drops idle connections).
 */
final class FlinkRangeReader implements RangeReader {
  private final Path path;
  private FSDataInputStream in;

  FlinkRangeReader(Path path) {
    this.path = path;
  }

  @Override
  public synchronized void read(long position, byte[] into, int offset, int length) throws IOException {
    try {
      readOnce(position, into, offset, length);
    } catch (IOException first) {
      closeQuietly();
      try {
        readOnce(position, into, offset, length);
      } catch (IOException second) {
        second.addSuppressed(first);
        throw new IOException("cannot read " + length + " bytes at " + position + " of " + path + ": "
            + second.getMessage(), second);
      }
    }
  }

  private void readOnce(long position, byte[] into, int offset, int length) throws IOException {
    if (in == null) {
      in = path.getFileSystem().open(path);
    }
    in.seek(position);
    int done = 0;
    while (done < length) {
      int r = in.read(into, offset + done, length - done);
      if (r < 0) {
        throw new EOFException(path + " ends before " + (position + length));
      }
      done += r;
    }
  }

  private void closeQuietly() {
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // a broken stream is replaced either way
      }
      in = null;
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (in != null) {
      in.close();
      in = null;
    }
  }
}
