package dev.kiln.snapshot.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * An S3 object's bytes as one stream that survives a broken connection. The SDK retries a GET until
 * its answer starts, but the body of {@code getObject} is read after the call returned, where nothing
 * retries: a connection reset, or a body that ends short of its {@code Content-Length}, surfaces as an
 * {@link IOException} in the middle of a download. Here such a read opens the object again from the
 * first byte not yet read ({@code Range: bytes=N-}), pinned to the ETag of the first answer
 * ({@code If-Match}), so the bytes handed out are one version of the object or the read fails. A body
 * that ends cleanly but short of the length the first answer declared counts as broken too.
 *
 * <p>At most {@code maxResumes} reopenings in a row that bring no byte further (each after a back-off
 * that doubles), and {@link #RESUMES_PER_ATTEMPT} times that many in all: a long download over a link
 * that breaks now and then goes on as long as it progresses. Then the read fails naming the object,
 * the offset and the last cause. Not thread-safe, like any stream.
 */
final class S3ObjectStream extends InputStream {
  /** Opens the object from {@code offset} to its end, on the version {@code etag}. */
  @FunctionalInterface
  interface Reopen {
    ResponseInputStream<GetObjectResponse> open(long offset, String etag) throws IOException;
  }

  /** Reopenings in all, per allowed reopening in a row without progress. */
  static final int RESUMES_PER_ATTEMPT = 10;
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  private final String name;
  private final Reopen reopen;
  private final long length;
  private final String etag;
  private final int maxResumes;
  private ResponseInputStream<GetObjectResponse> in;
  private long position;
  private int resumes;
  /** Reopenings since a read last brought a byte. */
  private int stalled;

  /**
   * @param name the object as errors name it ({@code s3://bucket/key})
   * @param first the answer to the first GET, read from its start
   */
  S3ObjectStream(String name, ResponseInputStream<GetObjectResponse> first, Reopen reopen, int maxResumes) {
    this.name = name;
    this.in = first;
    this.reopen = reopen;
    this.maxResumes = maxResumes;
    Long declared = first.response().contentLength();
    this.length = declared == null ? -1 : declared;
    this.etag = first.response().eTag();
  }

  /** How many times the object was opened again after a broken read. */
  int resumes() {
    return resumes;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (true) {
      IOException broke;
      try {
        int n = in.read(b, off, len);
        if (n > 0) {
          position += n;
          stalled = 0;
          return n;
        }
        if (n == 0) {
          continue;
        }
        if (length < 0 || position >= length) {
          return -1;
        }
        broke = new EOFException("the body ended at byte " + position + " of " + length);
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        broke = e;
      }
      resume(broke);
    }
  }

  private void resume(IOException cause) throws IOException {
    in.abort();
    while (true) {
      if (stalled >= maxResumes || resumes >= maxResumes * RESUMES_PER_ATTEMPT) {
        throw new IOException("cannot read " + name + ": the connection broke " + (resumes + 1) + " times, last at byte "
            + position + (length >= 0 ? " of " + length : "") + ": " + cause.getMessage(), cause);
      }
      resumes++;
      stalled++;
      backOff();
      try {
        in = reopen.open(position, etag);
        return;
      } catch (InterruptedIOException e) {
        throw e;
      } catch (ObjectChangedException e) {
        throw new IOException("cannot read " + name + ": it was replaced while it was read (at byte " + position + ")",
            e);
      } catch (IOException e) {
        cause = e;
      }
    }
  }

  private void backOff() throws InterruptedIOException {
    long millis = Math.min(MAX_BACKOFF.toMillis(), FIRST_BACKOFF.toMillis() << Math.min(stalled - 1, 16));
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading " + name);
    }
  }

  @Override
  public void close() throws IOException {
    if (length >= 0 && position < length) {
      in.abort(); // do not drain the rest of a large object over the network just to close it
    }
    in.close();
  }

  /** What {@link Reopen} throws when the object no longer has the ETag the stream started on. */
  static final class ObjectChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    ObjectChangedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
