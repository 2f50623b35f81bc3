package dev.kiln.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both backends over one real snapshot: the same hits, the same filters, the same refusals. */
class KilnBackendsITCase {
  @TempDir static Path root;
  private static KilnFixture kiln;
  private static KilnBackend embedded;
  private static KilnBackend http;

  @BeforeAll
  static void start() throws Exception {
    kiln = KilnFixture.start(root);
    embedded = KilnBackends.embedded(kiln.searcher());
    http = KilnBackends.http(kiln.url());
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    embedded.close();
    kiln.close();
  }

  private static List<String> ids(List<SearchHit> hits) {
    return hits.stream().map(SearchHit::chunkId).toList();
  }

  @Test
  void embeddedAndHttpReturnTheSameHits() {
    for (SearchMode mode : SearchMode.values()) {
      List<SearchHit> local = embedded.search("volcano lava eruption", mode, 3, KilnFilter.none());
      List<SearchHit> remote = http.search("volcano lava eruption", mode, 3, KilnFilter.none());
      assertEquals(ids(local), ids(remote), mode.label());
      assertEquals(local.get(0).text(), remote.get(0).text());
      assertEquals(local.get(0).metadata(), remote.get(0).metadata());
      assertEquals(local.get(0).score(), remote.get(0).score(), 1e-6);
    }
    assertTrue(ids(embedded.search("volcano lava eruption", SearchMode.HYBRID, 3, KilnFilter.none()))
        .contains("volcano#0"));
  }

  @Test
  void openedFromTheRootItSearchesCurrentAndClosesItsSearcher() {
    List<String> expected = ids(embedded.search("blue whale krill", SearchMode.HYBRID, 2, KilnFilter.none()));
    KilnBackend opened = KilnBackends.open(root.toString());
    try {
      assertEquals(expected, ids(opened.search("blue whale krill", SearchMode.HYBRID, 2, KilnFilter.none())));
    } finally {
      opened.close();
    }
    assertThrows(RuntimeException.class,
        () -> opened.search("blue whale krill", SearchMode.HYBRID, 2, KilnFilter.none()),
        "the backend closed the searcher it opened");
    // The caller's searcher is untouched by closing a backend over it.
    KilnBackends.embedded(kiln.searcher()).close();
    assertEquals(expected, ids(embedded.search("blue whale krill", SearchMode.HYBRID, 2, KilnFilter.none())));
  }

  @Test
  void filtersRestrictBothBackendsAlike() {
    KilnFilter geologyInEnglishSince2020 = KilnFilter.eq("topic", "geology").and(KilnFilter.eq("lang", "en"))
        .and(KilnFilter.range("year", RangeOp.GTE, 2020));
    for (KilnBackend b : List.of(embedded, http)) {
      assertEquals(List.of("lava#0"), ids(b.search("volcano", SearchMode.HYBRID, 8, geologyInEnglishSince2020)));
      assertEquals(List.of("volcano#0", "vulkan#0", "lava#0").stream().sorted().toList(),
          ids(b.search("volcano", SearchMode.HYBRID, 8, KilnFilter.eq("topic", "geology"))).stream().sorted().toList());
      assertEquals(List.of(), b.search("volcano", SearchMode.HYBRID, 8,
          KilnFilter.eq("lang", "en").and(KilnFilter.eq("lang", "de"))));
    }
  }

  @Test
  void aRangeOnAKeyNotIndexedForRangesIsRefusedWithKilnsReason() {
    KilnFilter bad = KilnFilter.range("topic", RangeOp.GTE, "g");
    KilnClientException local = assertThrows(KilnClientException.class,
        () -> embedded.search("volcano", SearchMode.HYBRID, 3, bad));
    KilnClientException remote = assertThrows(KilnClientException.class,
        () -> http.search("volcano", SearchMode.HYBRID, 3, bad));
    assertTrue(local.getMessage().contains("'topic' is not range-indexed"), local.getMessage());
    assertTrue(remote.getMessage().contains("'topic' is not range-indexed"), remote.getMessage());
    assertEquals(400, remote.status());
  }

  @Test
  void anUnreachableServerIsAClientExceptionNamingIt() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (KilnBackend gone = KilnBackends.http(URI.create("http://127.0.0.1:" + port), null, Duration.ofSeconds(5))) {
      KilnClientException e = assertThrows(KilnClientException.class,
          () -> gone.search("volcano", SearchMode.HYBRID, 3, KilnFilter.none()));
      assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }
  }
}
