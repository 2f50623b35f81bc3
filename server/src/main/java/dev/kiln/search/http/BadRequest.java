package dev.kiln.search.http;

/** A client error: answered with HTTP 400 and {@code {"error": message}}. */
final class BadRequest extends RuntimeException {
  BadRequest(String message) {
    super(message);
  }
}
