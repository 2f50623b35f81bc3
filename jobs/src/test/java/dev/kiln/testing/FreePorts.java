package dev.kiln.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for test servers that must be told their port before they start. */
public final class FreePorts {
  private FreePorts() {}

  /**
   * {@code n} distinct free loopback ports: each socket stays open until all are picked, or the
   * system could hand out one port twice (it did: a broker and a controller listener on one port).
   */
  public static int[] pick(int n) throws IOException {
    ServerSocket[] sockets = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          s.close();
        }
      }
    }
  }
}
