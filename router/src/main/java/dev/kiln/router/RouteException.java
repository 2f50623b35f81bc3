package dev.kiln.router;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Why a phase got no usable answer from a group: the client's error, a snapshot not held, or no replica. */
final class RouteException extends Exception {
  enum Kind { CLIENT, NOT_HELD, UNAVAILABLE }

  final Kind kind;
  final int group;
  final int status;
  final transient JsonNode body;
  final List<String> held;

  private RouteException(Kind kind, int group, int status, JsonNode body, List<String> held, String message) {
    super(message);
    this.kind = kind;
    this.group = group;
    this.status = status;
    this.body = body;
    this.held = held;
  }

  static RouteException client(int status, JsonNode body) {
    return new RouteException(Kind.CLIENT, -1, status, body, List.of(), body.path("error").asText("HTTP " + status));
  }

  static RouteException notHeld(int group, List<String> held) {
    return new RouteException(Kind.NOT_HELD, group, 409, null, held,
        "group " + group + " no longer holds the pinned snapshot; it holds " + held);
  }

  /** No snapshot is held by a live replica of every group: the router learns again and pins anew. */
  static RouteException noPin(String message) {
    return new RouteException(Kind.NOT_HELD, -1, 409, null, List.of(), message);
  }

  static RouteException unavailable(int group, String message) {
    return new RouteException(Kind.UNAVAILABLE, group, 503, null, List.of(), message);
  }
}
