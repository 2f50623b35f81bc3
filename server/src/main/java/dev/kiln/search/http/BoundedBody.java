package dev.kiln.search.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.io.Content;

/**
 * Reads a request body without holding a thread, keeping at most {@code max} bytes. A body past
 * {@code max} fails with {@link TooLarge}, but only after the rest of it (up to {@code drain} more
 * bytes) has been read and dropped: a server that answers and closes while the client's bytes still
 * sit unread in its socket makes the kernel reset the connection, and the client loses the answer
 * (a 400 that says why) with it.
 */
final class BoundedBody implements Runnable {
  /** A body longer than the limit; its bytes past the limit were read and dropped. */
  static final class TooLarge extends Exception {
    private static final long serialVersionUID = 1L;

    TooLarge(long seen) {
      super(seen + " bytes or more", null, false, false);
    }
  }

  private final Content.Source source;
  private final int max;
  private final long drain;
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private long seen;

  private BoundedBody(Content.Source source, int max, long drain) {
    this.source = source;
    this.max = max;
    this.drain = drain;
  }

  /** The body, or {@link TooLarge} past {@code max} bytes; reading stops once the future is done. */
  static CompletableFuture<byte[]> read(Content.Source source, int max, long drain) {
    BoundedBody b = new BoundedBody(source, max, drain);
    b.run();
    return b.result;
  }

  @Override
  public void run() {
    while (!result.isDone()) {
      Content.Chunk chunk = source.read();
      if (chunk == null) {
        source.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        result.completeExceptionally(chunk.getFailure());
        return;
      }
      ByteBuffer bytes = chunk.getByteBuffer();
      int n = bytes.remaining();
      if (seen + n <= max) {
        byte[] copy = new byte[n];
        bytes.get(copy);
        kept.write(copy, 0, n);
      }
      seen += n;
      boolean last = chunk.isLast();
      chunk.release();
      if (seen > max && (last || seen > max + drain)) {
        result.completeExceptionally(new TooLarge(seen));
      } else if (last) {
        result.complete(kept.toByteArray());
      }
    }
  }
}
