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
  /** This router's protocol version: the groups of the passing cases speak it. */
  static final int P = Topology.PROTOCOL;

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
    assertEquals(List.of("0", "1"), check(describe("/r", "m", "0", P), describe("/r", "m", "1", P)));
  }

  @Test
  void aGroupOfAnotherProtocolVersionIsRefused() {
    // A version-1 group (no "protocol" field) has no feedback phases: the defaults could not be served.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", P), describe("/r", "m", "1", null)));
    assertTrue(e.getMessage().contains("http://b speaks shard group protocol 1, this router " + P), e.getMessage());
    // A version-2 group has no context phase and would answer a federating router's depth with k; a
    // version-4 group has no parents phase, so a routed /context would lose other groups' parents.
    for (int older = 2; older < P; older++) {
      int v = older;
      e = assertThrows(IllegalArgumentException.class,
          () -> check(describe("/r", "m", "0", P), describe("/r", "m", "1", v)));
      assertTrue(e.getMessage().contains("protocol " + v + ", this router " + P), e.getMessage());
    }
  }

  @Test
  void federatedGroupsAreSortedByTheRootTheyServe() {
    List<RouterConfig.Root> roots = List.of(new RouterConfig.Root("/a", 1), new RouterConfig.Root("/b", 1));
    List<List<JsonNode>> described = List.of(List.of(describe("/b", "m", "0", P)), List.of(describe("/a", "m", "0",
        3)), List.of(describe("/b", "m", "1", P)));
    List<List<String>> urls = List.of(List.of("http://x"), List.of("http://y"), List.of("http://z"));
    assertEquals(List.of(List.of(1), List.of(0, 2)), Topology.partition(described, urls, roots));
    assertEquals(List.of(List.of(0, 1, 2)), Topology.partition(described, urls, List.of()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.partition(described,
        urls, List.of(new RouterConfig.Root("/a", 1), new RouterConfig.Root("/c", 1))));
    assertTrue(e.getMessage().contains("serves root /b, which no --root names"), e.getMessage());
  }

  @Test
  void federatedRootsMayDifferInModelAndShardsButNotInOptions() {
    List<RouterConfig.Root> roots = List.of(new RouterConfig.Root("/a", 1), new RouterConfig.Root("/b", 1));
    ObjectNode a = (ObjectNode) describe("/a", "m", "0", P).get("plan");
    ObjectNode b = ((ObjectNode) describe("/b", "m2", "0", P).get("plan")).put("shard_count", 7);
    Topology.checkFederation(List.of(a, b), roots);
    ObjectNode rrf = b.deepCopy().put("fusion", "rrf");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Topology.checkFederation(List.of(a, rrf), roots));
    assertTrue(e.getMessage().contains("root /b is searched with"), e.getMessage());
  }

  @Test
  void anotherModelIsNamedBeforeAnotherRoot() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", P), describe("/other", "m2", "1", P)));
    assertTrue(e.getMessage().contains("of model m2") && e.getMessage().contains("one router, one model"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> check(describe("/r", "m", "0", P), describe("/other", "m", "1", P)));
    assertTrue(e.getMessage().contains("serves snapshots root /other"), e.getMessage());
  }
}
