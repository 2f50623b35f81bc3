package dev.kiln.search.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {
  private static ByteBuffer bytes(int n, int fill) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) fill);
    return ByteBuffer.wrap(b);
  }

  @Test
  void aBodyWithinTheLimitIsReturnedWholeAcrossChunks() throws Exception {
    byte[] body = "aaabbbbb".getBytes(StandardCharsets.US_ASCII);
    byte[] read = BoundedBody.read(Content.Source.from(bytes(3, 'a'), bytes(5, 'b')), 8, 100).get(5, TimeUnit.SECONDS);
    assertArrayEquals(body, read);
    assertEquals(8, read.length);
  }

  @Test
  void aBodyPastTheLimitFailsOnlyAfterItsRestWasReadAndDropped() {
    Counting source = new Counting(Content.Source.from(bytes(6, 'a'), bytes(6, 'b'), bytes(6, 'c')));
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> BoundedBody.read(source, 8, 100).get(5, TimeUnit.SECONDS));
    assertInstanceOf(BoundedBody.TooLarge.class, e.getCause());
    assertEquals(3, source.reads.get(), "every chunk was read: nothing is left unread in the socket");
  }

  @Test
  void aBodyPastTheLimitAndTheDrainStopsBeingRead() {
    Counting source = new Counting(Content.Source.from(bytes(6, 'a'), bytes(6, 'b'), bytes(6, 'c'), bytes(6, 'd')));
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> BoundedBody.read(source, 4, 4).get(5, TimeUnit.SECONDS));
    assertInstanceOf(BoundedBody.TooLarge.class, e.getCause());
    assertEquals(2, source.reads.get(), "a hostile stream is not read to its end");
  }

  /** Counts the chunks read from a source. */
  private static final class Counting implements Content.Source {
    final Content.Source in;
    final AtomicInteger reads = new AtomicInteger();

    Counting(Content.Source in) {
      this.in = in;
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk c = in.read();
      if (c != null && c.hasRemaining()) {
        reads.incrementAndGet();
      }
      return c;
    }

    @Override
    public void demand(Runnable r) {
      in.demand(r);
    }

    @Override
    public void fail(Throwable t) {
      in.fail(t);
    }
  }
}
