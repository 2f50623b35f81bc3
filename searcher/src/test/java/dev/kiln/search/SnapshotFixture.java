package dev.kiln.search;

import dev.kiln.config.IndexConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelSpec;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.index.ParentStoreWriter;
import dev.kiln.index.ShardIndexWriter;
import dev.kiln.model.Chunk;
import dev.kiln.model.EmbeddedChunk;
import dev.kiln.model.ParentChunk;
import dev.kiln.snapshot.Checksums;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Writes small but real snapshots for tests: Lucene shards made by {@link ShardIndexWriter} with
 * vectors from the bundled model, a manifest with the SHA-256 of every shard file, and (unless told
 * otherwise) {@code CURRENT}. The default corpus has eight chunks on unrelated topics over two
 * shards; two documents have two chunks each, so chunk-to-document folding is exercised.
 */
public final class SnapshotFixture {
  /** The model the fixture embeds with; the snapshot's manifest names it. */
  public static final String MODEL = ModelRegistry.DEFAULT_MODEL;

  private final TextEmbedder embedder;
  private List<List<Chunk>> shards = defaultShards();
  private Integer manifestDimension;
  private String vectorEncoding = "float32";
  private boolean publish = true;
  private Map<String, String> rangeFields = Map.of();
  private Function<Chunk, float[]> vectors;
  private String modelFingerprint;
  private List<List<ParentChunk>> parents;

  /** @param embedder a passage embedder for {@link #MODEL}, owned by the caller */
  public SnapshotFixture(TextEmbedder embedder) {
    this.embedder = embedder;
  }

  /** Opens the embedder the fixture expects; close it when done. */
  public static TextEmbedder openEmbedder() {
    return TextEmbedder.open(ModelRegistry.resolve(MODEL), 8, 1);
  }

  /** Replaces the default corpus: one list of chunks per shard. */
  public SnapshotFixture shards(List<List<Chunk>> value) {
    this.shards = value;
    return this;
  }

  /** Writes the shards' vectors in this {@code index.vector-encoding} (default float32). */
  public SnapshotFixture vectorEncoding(String value) {
    this.vectorEncoding = value;
    return this;
  }

  /** Records another vector dimension in the manifest than the vectors have, to test the check. */
  public SnapshotFixture manifestDimension(int value) {
    this.manifestDimension = value;
    return this;
  }

  /**
   * A fixture whose chunk vectors come from {@code vectors} instead of the model (the manifest still
   * names {@link #MODEL}, whose dimension they must have): fast, for tests that hand the searcher
   * their query vectors.
   */
  public static SnapshotFixture withVectors(Function<Chunk, float[]> vectors) {
    SnapshotFixture f = new SnapshotFixture(null);
    f.vectors = vectors;
    return f;
  }

  /**
   * Records this model fingerprint in the manifest: the snapshot then reads as one embedded with
   * another model of the same dimension (its vectors are the fixture's all the same).
   */
  public SnapshotFixture modelFingerprint(String value) {
    this.modelFingerprint = value;
    return this;
  }

  /** Indexes these metadata keys for range filters ({@code index.range-fields}: key → type). */
  public SnapshotFixture rangeFields(Map<String, String> value) {
    this.rangeFields = value;
    return this;
  }

  /**
   * Writes a parents docstore, one part per shard as the build writes it ({@link ParentStoreWriter}):
   * the parents of each shard's chunks (their {@code parent_id} metadata names them), one list per shard.
   */
  public SnapshotFixture parents(List<List<ParentChunk>> value) {
    this.parents = value;
    return this;
  }

  /** Whether to point {@code CURRENT} at the new snapshot (default true). */
  public SnapshotFixture publish(boolean value) {
    this.publish = value;
    return this;
  }

  /** Writes a new snapshot under {@code root} and returns its id. */
  public String write(Path root) throws IOException {
    SnapshotLayout layout = new SnapshotLayout(root);
    String id = SnapshotLayout.newSnapshotId();
    IndexConfig config = new IndexConfig();
    config.vectorEncoding = vectorEncoding;
    config.rangeFields = new LinkedHashMap<>(rangeFields);
    ModelSpec spec = embedder != null ? embedder.spec() : ModelRegistry.resolve(MODEL);
    List<Manifest.ShardEntry> entries = new ArrayList<>();
    for (int n = 0; n < shards.size(); n++) {
      entries.add(writeShard(layout.shardDir(id, n), n, shards.get(n), config, spec.dimension()));
    }
    Manifest manifest = new Manifest(
        Manifest.FORMAT_VERSION,
        id,
        Instant.now().toString(),
        null,
        new Manifest.ModelInfo(spec.name(),
            manifestDimension == null ? spec.dimension() : manifestDimension,
            spec.pooling().name().toLowerCase(Locale.ROOT), spec.normalize(), spec.maxTokens(), modelFingerprint,
            null),
        new Manifest.ChunkerInfo("fixture", 256, 0, spec.name()),
        new Manifest.IndexInfo(config.analyzer, config.bm25K1, config.bm25B, "dot_product",
            config.hnswM, config.hnswBeamWidth, null, config.vectorEncoding),
        Map.of("chunks", (long) shards.stream().mapToInt(List::size).sum()),
        entries, null, null, parents == null ? null : writeParents(layout, id)).withRangeFields(rangeFields);
    SnapshotStore.json().writeValue(layout.manifest(id).toFile(), manifest);
    if (publish) {
      Files.writeString(layout.current(), id + "\n", StandardCharsets.UTF_8);
    }
    return id;
  }

  private Manifest.ShardEntry writeShard(Path dir, int shard, List<Chunk> chunks, IndexConfig config,
      int dimension) throws IOException {
    float[][] vectors = this.vectors != null ? chunks.stream().map(this.vectors).toArray(float[][]::new)
        : embedder.embedPassages(chunks.stream().map(Chunk::text).toList());
    Set<String> docs = new HashSet<>();
    try (ShardIndexWriter writer = new ShardIndexWriter(dir, config, dimension)) {
      for (int i = 0; i < chunks.size(); i++) {
        writer.add(new EmbeddedChunk(chunks.get(i), vectors[i]));
        docs.add(chunks.get(i).docId());
      }
    }
    return new Manifest.ShardEntry(shard, dir.getFileName().toString(), chunks.size(), docs.size(),
        fileEntries(dir));
  }

  private Manifest.DocstoreEntry writeParents(SnapshotLayout layout, String id) throws IOException {
    List<Manifest.FileEntry> files = new ArrayList<>();
    long count = 0;
    for (int n = 0; n < parents.size(); n++) {
      Path dir = layout.parentsDir(id, n);
      try (ParentStoreWriter writer = new ParentStoreWriter(dir)) {
        for (ParentChunk p : parents.get(n)) {
          writer.add(p);
          count++;
        }
      }
      // Docstore file names are relative to the docstore directory: shard-00000/_0.cfs, …
      for (Manifest.FileEntry f : fileEntries(dir)) {
        files.add(new Manifest.FileEntry(SnapshotLayout.shardDirName(n) + "/" + f.name(), f.size(), f.sha256()));
      }
    }
    return new Manifest.DocstoreEntry(SnapshotLayout.PARENTS, ParentStoreWriter.FORMAT, count, files);
  }

  /** Every file of a shard but Lucene's empty {@code write.lock}, which no reader needs. */
  static List<Manifest.FileEntry> fileEntries(Path dir) throws IOException {
    List<Manifest.FileEntry> files = new ArrayList<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path f : list.sorted().toList()) {
        String name = f.getFileName().toString();
        if (!name.equals("write.lock")) {
          files.add(new Manifest.FileEntry(name, Files.size(f), Checksums.sha256(f)));
        }
      }
    }
    return files;
  }

  /** A test chunk; offsets and token counts are filled in loosely because search never reads them. */
  public static Chunk chunk(String docId, int ordinal, String title, String text,
      Map<String, String> metadata) {
    return new Chunk(Chunk.chunkId(docId, ordinal), docId, ordinal, title, text, 0, text.length(), 0,
        metadata);
  }

  /** Eight chunks, six documents, two shards. */
  public static List<List<Chunk>> defaultShards() {
    return List.of(
        List.of(
            chunk("volcano", 0, "Volcanoes",
                "Magma rises through the crust and erupts from a volcano as lava and ash.",
                Map.of("topic", "geology", "lang", "en")),
            chunk("volcano", 1, "Volcanoes",
                "Pyroclastic flows are fast avalanches of hot gas and rock.",
                Map.of("topic", "geology", "lang", "en")),
            chunk("bread", 0, "Sourdough bread",
                "Knead the dough, let wild yeast ferment it overnight, then bake the loaf in a hot oven.",
                Map.of("topic", "cooking", "lang", "en")),
            chunk("chess", 0, "Chess openings",
                "The Sicilian Defence answers the king's pawn opening with the c-pawn.",
                Map.of("topic", "games", "lang", "en"))),
        List.of(
            chunk("whale", 0, "Blue whales",
                "Blue whales are the largest animals ever known; they feed on krill in cold oceans.",
                Map.of("topic", "biology", "lang", "en")),
            chunk("git", 0, "Version control",
                "Git stores every commit as a snapshot of the project tree.",
                Map.of("topic", "software", "lang", "en")),
            chunk("git", 1, "Version control",
                "A rebase replays your commits on top of another branch.",
                Map.of("topic", "software", "lang", "en")),
            chunk("marathon", 0, "Marathon training",
                "Runners build endurance with long slow runs before the 42 kilometre race.",
                Map.of("topic", "sport", "lang", "en"))));
  }
}
