package dev.kiln.search.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * Plain sockets to 127.0.0.1 for what an HTTP client library will not do: stall mid-request, send a
 * foreign {@code Host}, hang up before the answer.
 */
final class RawHttp {
  private RawHttp() {}

  static Socket open(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setTcpNoDelay(true);
    return s;
  }

  static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
  }

  /** Status line and headers and body, whatever arrived before the server closed or {@code wait} passed. */
  static String readAll(Socket s, Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[8192];
    while (System.nanoTime() < deadline) {
      s.setSoTimeout((int) Math.max(1, Math.min(1000, (deadline - System.nanoTime()) / 1_000_000)));
      try {
        int n = in.read(buf);
        if (n < 0) {
          break;
        }
        out.write(buf, 0, n);
        String sofar = out.toString(StandardCharsets.ISO_8859_1);
        if (complete(sofar)) {
          break;
        }
      } catch (SocketTimeoutException e) {
        // keep waiting until the deadline
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** One full response with a Content-Length body has arrived. */
  private static boolean complete(String sofar) {
    int end = sofar.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    String head = sofar.substring(0, end).toLowerCase(Locale.ROOT);
    int at = head.indexOf("content-length:");
    if (at < 0) {
      return false;
    }
    int eol = head.indexOf("\r\n", at);
    int length = Integer.parseInt(head.substring(at + 15, eol < 0 ? head.length() : eol).strip());
    return sofar.length() - end - 4 >= length;
  }

  /** A status code from the first line of {@link #readAll}'s text, or -1 when none came. */
  static int status(String response) {
    return response.startsWith("HTTP/1.1 ") && response.length() >= 12
        ? Integer.parseInt(response.substring(9, 12)) : -1;
  }

  /**
   * Waits until the server closes {@code s} (a read returns end of stream or a reset), up to
   * {@code wait}; returns whether it did. Bytes the server sends first are skipped.
   */
  static boolean closedByServer(Socket s, Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    byte[] buf = new byte[1024];
    while (System.nanoTime() < deadline) {
      s.setSoTimeout((int) Math.max(1, Math.min(1000, (deadline - System.nanoTime()) / 1_000_000)));
      try {
        if (s.getInputStream().read(buf) < 0) {
          return true;
        }
      } catch (SocketTimeoutException e) {
        // not yet
      } catch (IOException reset) {
        return true;
      }
    }
    return false;
  }
}
