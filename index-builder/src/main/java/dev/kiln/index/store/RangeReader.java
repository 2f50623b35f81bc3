package dev.kiln.index.store;

import java.io.Closeable;
import java.io.IOException;

/**
 * Reads byte ranges of one immutable file that lives elsewhere (an object in a bucket, a file on
 * HDFS): what {@link CachedRemoteFile} fetches a block with.
 */
public interface RangeReader extends Closeable {
  /** Reads exactly {@code length} bytes at {@code position} into {@code into} from {@code offset}. */
  void read(long position, byte[] into, int offset, int length) throws IOException;
}
