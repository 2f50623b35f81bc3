package dev.kiln.search.http;

import static dev.kiln.search.SnapshotFixture.chunk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.snapshot.SnapshotLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web page ({@code /ui}) in a real headless Chromium against a real server over two real snapshots
 * of one root, behind API keys: it lists the snapshots, shows a manifest's counters and quarantine
 * reasons, runs a query showing each hit's per-leg scores and gate verdict, compares the two snapshots'
 * answers, and shows a document holding markup as text. Screenshots go to {@code target/ui-screenshots}.
 *
 * <p>Skipped, saying why, where no Chromium is installed, unless {@code -Dkiln.tests.require-browser=true}
 * (as {@code .ci/run} sets), which makes a missing browser a failure.
 */
class WebPageBrowserITCase {
  private static final String KEY = "web-page-full-key-0123456789";
  private static final String TENANT_KEY = "web-page-tenant-key-0123456789";
  private static final String HOSTILE = "Refunds <script>alert(1)</script> and <img src=x onerror=\"document.title='pwned'\">"
      + " are paid in 30 days.";
  private static final Path SHOTS = Path.of("target", "ui-screenshots");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;
  @TempDir static Path etc;
  @TempDir static Path profile;
  private static TextEmbedder embedder;
  private static ReloadingSearcher searchers;
  private static SearchServer server;
  private static String older;
  private static String newer;

  @BeforeAll
  static void start() throws Exception {
    if (HeadlessChromium.find().isEmpty()) {
      return; // the test says why it does not run (requireBrowser); nothing to set up for it
    }
    embedder = SnapshotFixture.openEmbedder();
    Map<String, String> policy = Map.of("tenant", "acme", "breadcrumb", "Policies > Money");
    older = new SnapshotFixture(embedder).shards(List.of(List.of(
        chunk("refunds", 0, "Refunds", "Refunds are paid within 30 days of a return.", policy),
        chunk("shipping", 0, "Shipping", "Lost parcels are refunded after a claim.", policy),
        chunk("returns", 0, "Returns", "Returns are accepted for 60 days.", policy)))).write(root);
    addQuarantine(root, older);
    newer = new SnapshotFixture(embedder).shards(List.of(List.of(
        chunk("refunds", 0, "Refunds", "Refunds are paid within 30 days of a return.", policy),
        chunk("hostile", 0, "<b>Hostile</b> title", HOSTILE,
            Map.of("tenant", "acme", "breadcrumb", "Policies > <i>Injected</i>")),
        chunk("returns", 0, "Returns", "Returns are accepted for 60 days.", policy)))).write(root);
    searchers = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    Path keys = etc.resolve("api-keys");
    Files.writeString(keys, KEY + "\n" + TENANT_KEY + " tenant=acme\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    server = SearchServer.start(searchers, ServerConfig.of("127.0.0.1", 0, 2).withApiKeys(ApiKeys.load(keys)));
  }

  /** What a build that quarantined records writes in its manifest. */
  private static void addQuarantine(Path root, String id) throws Exception {
    Path manifest = new SnapshotLayout(root).manifest(id);
    ObjectNode m = (ObjectNode) JSON.readTree(manifest.toFile());
    ((ObjectNode) m.get("counters")).put("documents_read", 5).put("quarantined", 2);
    ObjectNode q = m.putObject("quarantine").put("total", 2).put("location", "quarantine/");
    q.putObject("by_reason").put("empty_text", 1).put("too_large", 1);
    JSON.writeValue(manifest.toFile(), m);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
      searchers.close();
      embedder.close();
    }
  }

  /** The browser; without one the test is skipped with the reason, or fails under the property. */
  private static Path requireBrowser() {
    Optional<Path> browser = HeadlessChromium.find();
    if (browser.isEmpty()) {
      String why = "no Chromium installed (/usr/bin/chromium, or -Dkiln.tests.chromium=PATH)";
      if (Boolean.getBoolean("kiln.tests.require-browser")) {
        fail(why + " and -Dkiln.tests.require-browser=true is set: apt-get install chromium");
      }
      Assumptions.abort("skipped: " + why + "; apt-get install chromium to run it,"
          + " -Dkiln.tests.require-browser=true (as in .ci/run) makes this a failure");
    }
    return browser.get();
  }

  @Test
  void pageShowsSnapshotsManifestScoredHitsAndAComparisonWithDocumentsAsText() throws Exception {
    Path browser = requireBrowser();
    String base = "http://127.0.0.1:" + server.port();
    try (HeadlessChromium page = new HeadlessChromium(browser, profile)) {
      page.open(base + "/ui");
      // The page holds no data: without a key the API refuses it, as it refuses any client.
      page.waitFor("document.getElementById('error').textContent.includes('401')", Duration.ofSeconds(20));
      assertEquals(0, page.eval("document.querySelectorAll('#snapshots tbody tr').length").asInt());

      // A tenant's key may search but not read the whole service's snapshots, on the page as on the API.
      page.eval(setValue("api-key", TENANT_KEY) + "document.getElementById('use-key').click()");
      page.waitFor("document.getElementById('error').textContent.includes('403')", Duration.ofSeconds(20));

      page.eval(setValue("api-key", KEY) + "document.getElementById('use-key').click()");
      page.waitFor("document.querySelectorAll('#snapshots tbody tr').length === 2", Duration.ofSeconds(20));
      assertEquals(newer, page.eval("document.querySelector('#snapshots tr td.current').parentElement"
          + ".dataset.snapshot").asText(), "the served snapshot is marked CURRENT");
      page.screenshot(SHOTS.resolve("01-snapshots.png"));

      page.eval("document.querySelector('#snapshots tr[data-snapshot=\"" + older + "\"] button.show-manifest').click()");
      page.waitFor("!document.getElementById('manifest-section').hidden", Duration.ofSeconds(20));
      String counters = page.eval("document.getElementById('counters').textContent").asText();
      assertTrue(counters.contains("chunks3") && counters.contains("quarantined2"), counters);
      String reasons = page.eval("document.getElementById('quarantine').textContent").asText();
      assertTrue(reasons.contains("empty_text1") && reasons.contains("too_large1"), reasons);
      page.screenshot(SHOTS.resolve("02-manifest.png"));

      int scripts = page.eval("document.querySelectorAll('script').length").asInt();
      page.eval(setValue("q", "refunds paid") + setSelect("snapshot-a", newer)
          + "document.getElementById('search').click()");
      page.waitFor("document.querySelectorAll('#results > li').length === 3", Duration.ofSeconds(30));
      JsonNode hits = page.eval("[...document.querySelectorAll('#results > li')].map(li => ({"
          + "chunk: li.dataset.chunk, text: li.querySelector('.text').textContent,"
          + "textElements: li.querySelector('.text').children.length,"
          + "title: li.querySelector('.title').textContent, crumb: li.querySelector('.breadcrumb').textContent,"
          + "legs: [...li.querySelectorAll('td[data-leg]')].map(td => td.dataset.leg + '=' + td.textContent),"
          + "gate: li.querySelector('.gate').textContent}))");
      for (JsonNode hit : hits) {
        String legs = hit.get("legs").toString();
        assertTrue(legs.contains("bm25=") && legs.contains("dense=") && legs.contains("fused=")
            && legs.contains("rerank="), legs);
        // Three chunks, legs looked into 100 deep: every hit has a dense rank, and a fused score (hybrid).
        assertFalse(legs.contains("\"dense=–\"") || legs.contains("\"fused=–\""), legs);
        assertTrue(hit.get("gate").asText().startsWith("kept: no gate is set"), hit.get("gate").asText());
      }
      JsonNode hostile = null;
      for (JsonNode hit : hits) {
        if (hit.get("chunk").asText().equals("hostile#0")) {
          hostile = hit;
        }
      }
      assertTrue(hostile != null, "the hostile chunk is among the hits: " + hits);
      assertEquals(HOSTILE, hostile.get("text").asText(), "the document's markup is shown as its text");
      assertEquals(0, hostile.get("textElements").asInt(), "no element was made from the document's text");
      assertEquals("#" + rankOf(hits, "hostile#0") + " <b>Hostile</b> title", hostile.get("title").asText());
      assertEquals("Policies > <i>Injected</i>", hostile.get("crumb").asText());
      assertEquals(scripts, page.eval("document.querySelectorAll('script').length").asInt(),
          "no script element was added");
      assertEquals(0, page.eval("document.querySelectorAll('#results img, #results b, #results i').length").asInt());
      assertEquals("Kiln: look inside", page.eval("document.title").asText());
      assertEquals(List.of(), page.events("Page.javascriptDialogOpening"), "no alert opened");
      page.screenshot(SHOTS.resolve("03-query.png"));

      page.eval(setSelect("snapshot-b", older) + "document.getElementById('compare').click()");
      page.waitFor("document.getElementById('overlap').textContent.startsWith('overlap@')", Duration.ofSeconds(30));
      // refunds and returns are in both snapshots' three hits; hostile only in the newer, shipping only in the older.
      String overlap = page.eval("document.getElementById('overlap').textContent").asText();
      assertTrue(overlap.startsWith("overlap@10: 2/10 (0.20)"), overlap);
      assertTrue(overlap.contains("1 only in " + newer) && overlap.contains("1 only in " + older), overlap);
      assertEquals("only here", page.eval("document.querySelector('#compare-a li[data-chunk=\"hostile#0\"] .move')"
          + ".textContent").asText());
      assertEquals("only here", page.eval("document.querySelector('#compare-b li[data-chunk=\"shipping#0\"] .move')"
          + ".textContent").asText());
      page.screenshot(SHOTS.resolve("04-compare.png"));
      assertEquals(List.of(), page.events("Page.javascriptDialogOpening"), "no alert opened");
    }
  }

  private static int rankOf(JsonNode hits, String chunk) {
    for (int i = 0; i < hits.size(); i++) {
      if (hits.get(i).get("chunk").asText().equals(chunk)) {
        return i + 1;
      }
    }
    return -1;
  }

  private static String setValue(String id, String value) throws Exception {
    return "document.getElementById('" + id + "').value = " + JSON.writeValueAsString(value) + ";";
  }

  private static String setSelect(String id, String value) throws Exception {
    return setValue(id, value);
  }
}
