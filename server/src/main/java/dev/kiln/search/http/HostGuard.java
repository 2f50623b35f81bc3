package dev.kiln.search.http;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses requests addressed to a name the server was not told it has, and requests sent by a page
 * from a foreign origin. This is what stops DNS rebinding: a page on {@code evil.example} that
 * re-points its name at 127.0.0.1 reaches the port, but its requests carry {@code Host:
 * evil.example} (and, from scripts, {@code Origin: http://evil.example}).
 *
 * <p>Accepted names: the bound address (unless it is a wildcard), {@code localhost},
 * {@code 127.0.0.1}, {@code ::1}, and each {@code --allowed-host}. Ports are ignored: a local page on
 * another port is still local. A request without {@code Host} (HTTP/1.0 tools) or without
 * {@code Origin} (anything that is not a browser script) passes; {@code Origin: null} (sandboxed
 * frames, files) does not.
 */
final class HostGuard {
  private final Set<String> allowed = new HashSet<>();

  HostGuard(String boundHost, List<String> extraHosts) {
    allowed.addAll(List.of("localhost", "127.0.0.1", "::1"));
    String bound = normalise(boundHost);
    if (!bound.isEmpty() && !bound.equals("0.0.0.0") && !bound.equals("::")) {
      allowed.add(bound);
    }
    for (String h : extraHosts) {
      allowed.add(normalise(h));
    }
  }

  /** Why the request is refused, or {@code null} when it may go on. */
  String refusal(String host, String origin) {
    if (host != null && !allowed.contains(normalise(hostOfAuthority(host)))) {
      return "host '" + host + "' is not served here (allow it with --allowed-host)";
    }
    if (origin != null && !allowedOrigin(origin)) {
      return "origin '" + origin + "' may not call this server (allow its host with --allowed-host)";
    }
    return null;
  }

  private boolean allowedOrigin(String origin) {
    try {
      URI uri = new URI(origin.strip());
      String scheme = uri.getScheme();
      return uri.getHost() != null && scheme != null
          && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
          && allowed.contains(normalise(uri.getHost()));
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /** {@code name}, {@code name:port}, {@code [v6]} or {@code [v6]:port} → the name. */
  private static String hostOfAuthority(String authority) {
    String a = authority.strip();
    if (a.startsWith("[")) {
      int end = a.indexOf(']');
      return end < 0 ? a : a.substring(0, end + 1);
    }
    int colon = a.indexOf(':');
    return colon >= 0 && colon == a.lastIndexOf(':') ? a.substring(0, colon) : a;
  }

  private static String normalise(String host) {
    String h = host == null ? "" : host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1); // "localhost." is localhost
    }
    return h;
  }
}
