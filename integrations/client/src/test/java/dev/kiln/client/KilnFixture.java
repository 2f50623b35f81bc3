package dev.kiln.client;

import dev.kiln.embed.TextEmbedder;
import dev.kiln.model.Chunk;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.SnapshotFixture;
import dev.kiln.search.http.ReloadingSearcher;
import dev.kiln.search.http.SearchServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A real snapshot, embedded with the bundled model, and a real {@code kiln serve} on 127.0.0.1 over it:
 * what the framework integrations' tests retrieve from. Eight chunks about eight topics, with {@code
 * topic}, {@code lang} and a range-indexed {@code year}. Close it when done.
 */
public final class KilnFixture implements AutoCloseable {
  private final Path root;
  private final Searcher searcher;
  private final ReloadingSearcher served;
  private final SearchServer server;

  private KilnFixture(Path root, Searcher searcher, ReloadingSearcher served, SearchServer server) {
    this.root = root;
    this.searcher = searcher;
    this.served = served;
    this.server = server;
  }

  /** Writes the snapshot under {@code root} and starts the server on an ephemeral loopback port. */
  public static KilnFixture start(Path root) throws IOException {
    try (TextEmbedder embedder = SnapshotFixture.openEmbedder()) {
      new SnapshotFixture(embedder).rangeFields(Map.of("year", "long"))
          .shards(List.of(chunks().subList(0, 4), chunks().subList(4, 8))).write(root);
    }
    Searcher searcher = Searcher.open(root);
    ReloadingSearcher served = new ReloadingSearcher(root, SearchOptions.defaults(), 0);
    return new KilnFixture(root, searcher, served, SearchServer.start(served, "127.0.0.1", 0, 4));
  }

  /** The corpus: eight chunks of eight documents. */
  public static List<Chunk> chunks() {
    return List.of(
        chunk("volcano", "Volcanoes", "Magma rises through the crust and erupts from a volcano as lava and ash.",
            "geology", "en", 2019),
        chunk("bread", "Sourdough bread",
            "Knead the dough, let wild yeast ferment it overnight, then bake the loaf in a hot oven.", "cooking", "en",
            2021),
        chunk("chess", "Chess openings", "The Sicilian Defence answers the king's pawn opening with the c-pawn.",
            "games", "en", 2020),
        chunk("vulkan", "Vulkane", "Magma steigt durch die Erdkruste auf und bricht als Lava aus einem Vulkan aus.",
            "geology", "de", 2022),
        chunk("whale", "Blue whales",
            "Blue whales are the largest animals ever known; they feed on krill in cold oceans.", "biology", "en", 2018),
        chunk("git", "Version control", "Git stores every commit as a snapshot of the project tree.", "software",
            "en", 2023),
        chunk("marathon", "Marathon training",
            "Runners build endurance with long slow runs before the 42 kilometre race.", "sport", "en", 2024),
        chunk("lava", "Lava flows", "Basaltic lava from a shield volcano flows far before it cools into rock.",
            "geology", "en", 2024));
  }

  private static Chunk chunk(String doc, String title, String text, String topic, String lang, int year) {
    return SnapshotFixture.chunk(doc, 0, title, text,
        Map.of("topic", topic, "lang", lang, "year", Integer.toString(year)));
  }

  public Path root() {
    return root;
  }

  /** The snapshot opened in this JVM; the fixture closes it. */
  public Searcher searcher() {
    return searcher;
  }

  /** The server's base URL, {@code http://127.0.0.1:PORT}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.port());
  }

  @Override
  public void close() throws IOException {
    server.close();
    served.close();
    searcher.close();
  }
}
