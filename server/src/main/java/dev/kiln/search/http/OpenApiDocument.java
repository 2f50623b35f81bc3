package dev.kiln.search.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The OpenAPI 3 description of the HTTP API, {@code GET /openapi.json}: a file kept in the repository
 * beside this class ({@code openapi.json}), read once. {@code OpenApiConformanceTest} parses it with
 * the reference parser and checks live answers of every endpoint against it, so it cannot drift.
 */
final class OpenApiDocument {
  static final String RESOURCE = "openapi.json";
  private static final String TEXT = load();

  private OpenApiDocument() {}

  private static String load() {
    try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the server's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /** The document as served. */
  static String text() {
    return TEXT;
  }

  static Reply reply() {
    return new Reply(200, "application/json", TEXT, Map.of("Cache-Control", "max-age=300"));
  }
}
