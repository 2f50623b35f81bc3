package dev.kiln.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines without decoding it, remembering each line's byte offset. A line
 * longer than the record limit is consumed to its end but only its first bytes are kept, so one
 * enormous line can neither exhaust memory nor desynchronise the lines after it. A UTF-8 byte-order
 * mark at the start of the file is skipped: it belongs to no line.
 */
final class LineScanner {
  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int lim;
  private boolean eof;
  private long position;
  private boolean bomChecked;

  private byte[] line = new byte[1024];
  private int length;
  private long lineStart;
  private long lineBytes;

  /** @param position the stream's byte offset in its file (a split's start) */
  LineScanner(InputStream in, long position, int maxLineBytes) {
    this.in = in;
    this.position = position;
    this.maxLineBytes = maxLineBytes;
  }

  /** Reads the next line; false at the end of the stream. The terminator ({@code \n}, {@code \r\n}) is not kept. */
  boolean next() throws IOException {
    length = 0;
    if (!bomChecked) {
      bomChecked = true;
      skipBom();
    }
    lineStart = position;
    boolean any = false;
    while (true) {
      if (pos == lim && !fill()) {
        break;
      }
      any = true;
      int start = pos;
      while (pos < lim && buf[pos] != '\n') {
        pos++;
      }
      append(start, pos - start);
      position += pos - start;
      if (pos < lim) {
        pos++;
        position++;
        break;
      }
    }
    if (!any) {
      return false;
    }
    lineBytes = position - lineStart;
    if (length > 0 && length <= maxLineBytes && line[length - 1] == '\r') {
      length--;
    }
    return true;
  }

  /** Skips past the next {@code \n}; used by a split that starts inside a line owned by the previous split. */
  void skipPartialLine() throws IOException {
    while (pos < lim || fill()) {
      byte b = buf[pos++];
      position++;
      if (b == '\n') {
        return;
      }
    }
  }

  /** At the file's first byte, steps over a byte-order mark (read far enough to see all three bytes). */
  private void skipBom() throws IOException {
    if (position != 0 || pos != 0) {
      return;
    }
    while (lim < SourceStreams.BOM.length && !eof) {
      int n = in.read(buf, lim, buf.length - lim);
      if (n <= 0) {
        eof = true;   // as in fill(): a stream that returns nothing has ended
        break;
      }
      lim += n;
    }
    if (SourceStreams.startsWithBom(buf, lim)) {
      pos = SourceStreams.BOM.length;
      position = SourceStreams.BOM.length;
    }
  }

  private void append(int start, int n) {
    int room = maxLineBytes + 1 - length;   // keep one byte over the limit to know it was exceeded
    int take = Math.min(n, Math.max(0, room));
    if (take > 0) {
      if (length + take > line.length) {
        line = Arrays.copyOf(line, Math.max(length + take, line.length * 2));
      }
      System.arraycopy(buf, start, line, length, take);
      length += take;
    }
  }

  private boolean fill() throws IOException {
    if (eof) {
      return false;
    }
    int n = in.read(buf, 0, buf.length);
    if (n <= 0) {
      eof = true;
      return false;
    }
    pos = 0;
    lim = n;
    return true;
  }

  byte[] bytes() {
    return line;
  }

  /** Kept bytes of the line (at most the limit + 1). */
  int length() {
    return length;
  }

  boolean tooLong() {
    return length > maxLineBytes;
  }

  long lineStart() {
    return lineStart;
  }

  /** Bytes the line took in the stream, terminator included. */
  long lineBytes() {
    return lineBytes;
  }

  /** Offset of the next unread byte. */
  long position() {
    return position;
  }
}
