package dev.kiln.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up check of the groups' {@code describe} answers: protocol version, model before root. */
class TopologyTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static ObjectNode describe(String root, String model, String shards, Integer protocol) {
    ObjectNode d = JSON.createObjectNode().put("root", root).put("snapshot", "s1").put("shards", shards);
    if (protocol != null) {
      d.put("protocol", protocol);
    }
    d.putArray("held").add("s1");
    d.putObject("plan").put("model", model).put("shard_count", 2).put("fusion", "blend");
    d.putNull("unsupported");
    return d;
  }

  static List<String> check(JsonNode a, JsonNode b) {
    return Topology.check(List.of(List.of(a), List.of(b)), List.of(List.of("http://a"), List.of("http://b")));
  }

  @Test
  void groupsOfTheSameRootModelAndProtocolPass() {
    assertEquals(List.of("0", "1"), check(describe("/r", "m", "0", 2), describe("/r", "m", "1", 2)));
  }

  @Test
  void aGroupOfAnotherProtocolVersionIsRefused() {
    // A version-1 group (no "protocol" field) has no feedback phases: the defaults could not be served.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", 2), describe("/r", "m", "1", null)));
    assertTrue(e.getMessage().contains("http://b speaks shard group protocol 1, this router 2"), e.getMessage());
  }

  @Test
  void anotherModelIsNamedBeforeAnotherRoot() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", 2), describe("/other", "m2", "1", 2)));
    assertTrue(e.getMessage().contains("of model m2") && e.getMessage().contains("one router, one model"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", 2), describe("/other", "m", "1", 2)));
    assertTrue(e.getMessage().contains("serves snapshots root /other"), e.getMessage());
  }
}
