package dev.kiln.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.BuildConfig;
import dev.kiln.search.FederatedSearcher;
import dev.kiln.search.RelevanceGate;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.SearchServer;
import dev.kiln.search.http.ServedRoots;
import dev.kiln.search.http.ServerConfig;
import dev.kiln.testing.CliRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several snapshots roots searched as one through the CLI: roots merged on calibrated scores, every
 * hit labelled with its root, filters applied in each root, a root with another model searched with
 * its own model; and the relevance gate on a calibrated score, so that hybrid search can answer "no
 * relevant context" and eval counts abstentions.
 */
class FederatedSearchITCase {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path work;
  static Path oceans;
  static Path earth;
  static Path bge;

  @BeforeAll
  static void buildTwoRoots() throws Exception {
    oceans = build("oceans", "all-minilm-l6-v2-q", List.of(
        line("tides", "Tides", "The moon's pull raises two bulges of sea water that the earth turns under.", "acme"),
        line("kelp", "Kelp forests", "Giant kelp grows half a metre a day in cold, nutrient-rich coastal water.", "acme"),
        line("reef", "Coral reefs", "Reef-building corals host algae that feed them through photosynthesis.", "globex"),
        line("abyss", "The abyssal plain", "The deep ocean floor is cold, dark and covered in fine sediment.", "globex")));
    earth = build("earth", "all-minilm-l6-v2-q", List.of(
        line("volcano", "Stratovolcanoes", "Viscous magma traps gas, so stratovolcanoes erupt explosively.", "acme"),
        line("glacier", "Glaciers", "Glaciers creep downhill under their own weight, grinding bedrock into flour.", "globex"),
        line("quake", "Earthquakes", "Earthquakes release strain stored where tectonic plates lock together.", "acme"),
        line("dune", "Sand dunes", "Wind piles sand into dunes that migrate downwind a few metres a year.", "globex")));
    bge = build("bge", "bge-small-en-v15-q", List.of(
        line("bread", "Sourdough", "Lactobacilli in a sourdough starter sour the dough and help it rise.", "acme"),
        line("penguin", "Emperor penguins", "Emperor penguins keep their egg warm on their feet through the polar night.",
            "globex")));
  }

  static Path build(String name, String model, List<String> lines) throws Exception {
    Path corpus = work.resolve(name + ".jsonl");
    Files.write(corpus, lines);
    BuildConfig config = new BuildConfig();
    config.corpus = List.of(corpus.toString());
    config.snapshots = work.resolve(name).toString();
    config.shards = 2;
    config.parallelism = 2;
    config.embed.model = model;
    new SnapshotBuilder(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
        .build(BuildJob.localEnvironment(2));
    return work.resolve(name);
  }

  static String line(String id, String title, String text, String tenant) {
    return "{\"_id\": \"" + id + "\", \"title\": \"" + title + "\", \"text\": \"" + text
        + "\", \"metadata\": {\"tenant\": \"" + tenant + "\"}}";
  }

  static JsonNode search(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("search", "--json"));
    all.addAll(List.of(args));
    CliRun run = CliRun.of(all.toArray(String[]::new));
    assertEquals(0, run.exitCode(), run.err());
    return JSON.readTree(run.out());
  }

  @Test
  void hitsFromBothRootsAreFusedAndLabelledWithTheirRoot() throws Exception {
    JsonNode volcano = search("--snapshots", oceans.toString(), "--snapshots", earth.toString(), "--k", "8",
        "why do stratovolcanoes erupt explosively");
    JsonNode first = volcano.get("results").get(0);
    assertEquals("volcano", first.get("doc_id").asText(), volcano.toString());
    assertEquals(earth.toString(), first.get("root").asText());
    JsonNode tides = search("--snapshots", oceans.toString(), "--snapshots", earth.toString(), "--k", "8",
        "what makes the sea level rise and fall each day");
    assertEquals("tides", tides.get("results").get(0).get("doc_id").asText(), tides.toString());
    assertEquals(oceans.toString(), tides.get("results").get(0).get("root").asText());
    Set<String> roots = new HashSet<>();
    tides.get("results").forEach(r -> roots.add(r.get("root").asText()));
    assertEquals(Set.of(oceans.toString(), earth.toString()), roots, "both roots contribute candidates");
    String snapshot = tides.get("snapshot").asText();
    assertTrue(snapshot.startsWith(oceans + "=") && snapshot.contains("," + earth + "="), snapshot);
  }

  @Test
  void aRootWithAnotherModelIsSearchedWithItsOwnModel() throws Exception {
    String query = "which birds keep an egg warm on their feet";
    JsonNode alone = search("--snapshots", bge.toString(), "--min-score", "0", "--k", "2", query);
    JsonNode both = search("--snapshots", oceans.toString(), "--snapshots", bge.toString(), "--k", "6", query);
    int fromBge = 0;
    for (JsonNode hit : both.get("results")) {
      if (!hit.get("root").asText().equals(bge.toString())) {
        continue;
      }
      fromBge++;
      JsonNode same = null;
      for (JsonNode a : alone.get("results")) {
        if (a.get("chunk_id").asText().equals(hit.get("chunk_id").asText())) {
          same = a;
        }
      }
      assertTrue(same != null, hit + " not in " + alone);
      assertEquals(same.get("relevance").asDouble(), hit.get("relevance").asDouble(), 1e-5,
          "the bge root's similarity is computed with bge's query vector, not the other root's model");
    }
    assertEquals(2, fromBge, both.toString());
    assertEquals("penguin", alone.get("results").get(0).get("doc_id").asText());
  }

  @Test
  void aFilterAppliesInEveryRoot() throws Exception {
    for (String mode : List.of("hybrid", "dense", "bm25")) {
      JsonNode r = search("--snapshots", oceans.toString(), "--snapshots", earth.toString(), "--k", "8",
          "--mode", mode, "--filter", "tenant=globex", "cold water rock sand");
      assertFalse(r.get("results").isEmpty(), mode);
      Set<String> roots = new HashSet<>();
      for (JsonNode hit : r.get("results")) {
        assertEquals("globex", hit.get("metadata").get("tenant").asText(), mode + ": " + hit);
        roots.add(hit.get("root").asText());
      }
      assertEquals(2, roots.size(), mode + ": both roots hold globex documents: " + r);
    }
  }

  @Test
  void aRootWeightOfZeroLeavesOnlyTheOtherRootsRanking() throws Exception {
    JsonNode r = search("--snapshots", oceans.toString(), "--snapshots", earth.toString(),
        "--snapshots-weight", "0", "--snapshots-weight", "1", "--k", "3", "--fusion", "rrf",
        "why do stratovolcanoes erupt explosively");
    for (JsonNode hit : r.get("results")) {
      assertEquals(earth.toString(), hit.get("root").asText(), r.toString());
    }
  }

  @Test
  void theHybridGateComparesTheDenseSimilarityOnTheDenseScale() throws Exception {
    String query = "how fast does giant kelp grow";
    JsonNode dense = search("--snapshots", oceans.toString(), "--mode", "dense", "--k", "1", query);
    JsonNode hybrid = search("--snapshots", oceans.toString(), "--min-score", "0", "--k", "1", query);
    JsonNode d = dense.get("results").get(0);
    JsonNode h = hybrid.get("results").get(0);
    assertEquals(d.get("chunk_id").asText(), h.get("chunk_id").asText());
    assertEquals(d.get("score").asDouble(), h.get("relevance").asDouble(), 1e-4,
        "hybrid's calibrated score is the dense score of the same chunk");
    assertNotEquals(h.get("score").asDouble(), h.get("relevance").asDouble(), "not the fused score");

    // The top hybrid hit used to pass any floor (its min-max normalised score is 1); now it can fail.
    JsonNode none = search("--snapshots", oceans.toString(), "--min-score", "0.999", query);
    assertTrue(none.get("results").isEmpty(), none.toString());
    assertEquals("no relevant context", none.get("reason").asText());
  }

  @Test
  void aThresholdBetweenOnAndOffTopicAnswersOneAndAbstainsOnTheOther() throws Exception {
    String on = "how fast does giant kelp grow";
    String off = "quarterly corporate income tax filing deadline";
    double onTop = search("--snapshots", oceans.toString(), "--min-score", "0", on).get("results").get(0)
        .get("relevance").asDouble();
    double offTop = search("--snapshots", oceans.toString(), "--min-score", "0", off).get("results").get(0)
        .get("relevance").asDouble();
    assertTrue(onTop > offTop, onTop + " vs " + offTop);
    String threshold = Double.toString((onTop + offTop) / 2);
    assertFalse(search("--snapshots", oceans.toString(), "--min-score", threshold, on).get("results").isEmpty());
    assertTrue(search("--snapshots", oceans.toString(), "--min-score", threshold, off).get("results").isEmpty());

    // eval counts it: the judged query is answered, the unjudged (unanswerable) one abstains.
    Path queries = work.resolve("queries.jsonl");
    Files.write(queries, List.of("{\"_id\": \"q1\", \"text\": \"" + on + "\"}",
        "{\"_id\": \"q2\", \"text\": \"" + off + "\"}"));
    Path qrels = work.resolve("qrels.tsv");
    Files.write(qrels, List.of("query-id\tcorpus-id\tscore", "q1\tkelp\t1"));
    CliRun eval = CliRun.of("eval", "--json", "--snapshots", oceans.toString(), "--queries", queries.toString(),
        "--qrels", qrels.toString(), "--min-score", threshold);
    assertEquals(0, eval.exitCode(), eval.err());
    JsonNode report = JSON.readTree(eval.out());
    assertEquals(1, report.get("answered").asInt(), report.toString());
    assertEquals(0, report.get("abstained").asInt());
    assertEquals(1, report.get("unjudged").asInt());
    assertEquals(1, report.get("unjudged_abstained").asInt());
  }

  @Test
  void evalOverSeveralRootsScoresTheFusedRanking() throws Exception {
    Path queries = work.resolve("fed-queries.jsonl");
    Files.write(queries, List.of("{\"_id\": \"q1\", \"text\": \"why do stratovolcanoes erupt explosively\"}",
        "{\"_id\": \"q2\", \"text\": \"how fast does giant kelp grow\"}"));
    Path qrels = work.resolve("fed-qrels.tsv");
    Files.write(qrels, List.of("query-id\tcorpus-id\tscore", "q1\tvolcano\t1", "q2\tkelp\t1"));
    CliRun eval = CliRun.of("eval", "--json", "--snapshots", oceans.toString(), "--snapshots", earth.toString(),
        "--queries", queries.toString(), "--qrels", qrels.toString());
    assertEquals(0, eval.exitCode(), eval.err());
    JsonNode report = JSON.readTree(eval.out());
    assertEquals(2, report.get("queries").asInt());
    assertEquals(1.0, report.get("mrr@10").asDouble(), 1e-9, "each query's document ranks first: " + report);
  }

  @Test
  void serveSearchesEveryRootAndEachRootReloadsOnItsOwn() throws Exception {
    try (ReloadingSearcher a = new ReloadingSearcher(oceans, SearchOptions.defaults(), 50);
        ReloadingSearcher b = new ReloadingSearcher(earth, SearchOptions.defaults(), 50)) {
      ServedRoots roots = new ServedRoots(List.of(new ServedRoots.Root("oceans", a, 1.0),
          new ServedRoots.Root("earth", b, 1.0)), FederatedSearcher.Merge.CALIBRATED, 60, RelevanceGate.OFF);
      try (SearchServer server = SearchServer.start(roots, ServerConfig.of("127.0.0.1", 0, 2))) {
        String base = "http://127.0.0.1:" + server.port();
        JsonNode volcano = get(base + "/search?q=why+do+stratovolcanoes+erupt+explosively&k=8");
        assertEquals("volcano", volcano.get("results").get(0).get("doc_id").asText(), volcano.toString());
        assertEquals("earth", volcano.get("results").get(0).get("root").asText());
        JsonNode before = get(base + "/snapshot");
        String earthId = before.get("roots").get(1).get("snapshot").asText();
        String oceansId = before.get("roots").get(0).get("snapshot").asText();

        // A new snapshot in one root: that root swaps, the other keeps serving what it served.
        build("oceans", "all-minilm-l6-v2-q", Files.readAllLines(work.resolve("oceans.jsonl")));
        long deadline = System.nanoTime() + 60_000_000_000L;
        JsonNode after = get(base + "/snapshot");
        while (after.get("roots").get(0).get("snapshot").asText().equals(oceansId)) {
          assertTrue(System.nanoTime() < deadline, "the oceans root never reloaded: " + after);
          Thread.sleep(50); // polling a condition
          after = get(base + "/snapshot");
        }
        assertEquals(earthId, after.get("roots").get(1).get("snapshot").asText());
        JsonNode health = get(base + "/health");
        assertEquals("ok", health.get("status").asText(), health.toString());
        // One reload status per root, in root order, without the labels (a served root's label is its path).
        assertEquals(2, health.get("reload").size(), health.toString());
        assertEquals(after.get("roots").get(0).get("snapshot").asText() + "," + earthId, health.get("snapshot").asText());
        assertTrue(health.get("reload").get(0).get("reloads").asLong() >= 1, health.toString());
        assertEquals(0, health.get("reload").get(1).get("reloads").asLong(), health.toString());
        JsonNode tides = get(base + "/search?q=what+makes+the+sea+level+rise+and+fall+each+day&k=3");
        assertEquals("tides", tides.get("results").get(0).get("doc_id").asText(), tides.toString());
        assertEquals("oceans", tides.get("results").get(0).get("root").asText());
      }
    }
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  @Test
  void usageErrorsNameTheOption() {
    CliRun one = CliRun.of("search", "--snapshots", oceans.toString(), "--snapshots", earth.toString(),
        "--snapshot", "20260101T000000Z-0000", "kelp");
    assertEquals(2, one.exitCode());
    assertTrue(one.err().contains("--snapshot"), one.err());
    CliRun weights = CliRun.of("search", "--snapshots", oceans.toString(), "--snapshots", earth.toString(),
        "--snapshots-weight", "1", "kelp");
    assertEquals(2, weights.exitCode());
    assertTrue(weights.err().contains("--snapshots-weight"), weights.err());
    CliRun parents = CliRun.of("search", "--snapshots", oceans.toString(), "--snapshots", earth.toString(),
        "--expand", "parents", "kelp");
    assertEquals(2, parents.exitCode());
    assertTrue(parents.err().contains("single --snapshots root"), parents.err());
  }
}
