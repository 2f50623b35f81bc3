package dev.kiln.search.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web page's static files ({@code /ui}: one HTML page, one script, one style sheet), read once from
 * the server's own resources: nothing to build, nothing served from disk. They hold no data: the page
 * reads everything through the API with the key the user types, under the API's rules.
 *
 * <p>Served with a Content-Security-Policy that allows scripts, styles and requests from this server
 * only and no inline script, so that even a document whose text got into the page as markup could not
 * run; the script itself only ever sets text ({@code textContent}), never markup.
 */
final class UiAssets {
  static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
      + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final String BASE = "/dev/kiln/search/http/ui/";

  private final Map<String, Reply> files = new LinkedHashMap<>();

  UiAssets() {
    Reply page = load("index.html", "text/html; charset=utf-8");
    files.put("/ui", page);
    files.put("/ui/", page);
    files.put("/ui/index.html", page);
    files.put("/ui/app.js", load("app.js", "text/javascript; charset=utf-8"));
    files.put("/ui/app.css", load("app.css", "text/css; charset=utf-8"));
  }

  /** The file at {@code path} (under {@code /ui}), or a 404 naming the page. */
  Reply get(String path) {
    Reply r = files.get(path);
    return r != null ? r : Reply.error(404, "no file " + path + " in the web page: open /ui");
  }

  private static Reply load(String name, String contentType) {
    try (InputStream in = UiAssets.class.getResourceAsStream(BASE + name)) {
      if (in == null) {
        throw new IllegalStateException("the web page's " + name + " is missing from the server's jar");
      }
      String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Reply(200, contentType, body, Map.of())
          .withHeader("Content-Security-Policy", CSP)
          .withHeader("X-Content-Type-Options", "nosniff")
          .withHeader("Referrer-Policy", "no-referrer")
          // Revalidated each time: a new server version's page never runs with an old script.
          .withHeader("Cache-Control", "no-cache");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the web page's " + name, e);
    }
  }
}
