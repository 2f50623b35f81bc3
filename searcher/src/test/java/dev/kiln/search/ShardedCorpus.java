package dev.kiln.search;

import dev.kiln.model.Chunk;
import dev.kiln.model.ParentChunk;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A deterministic multi-shard snapshot for shard-group tests: {@code chunks} chunks over {@code shards}
 * shards, texts drawn from a small vocabulary with a skewed distribution (so BM25's idf differs per
 * shard), metadata {@code topic} (five values) and {@code lang} (two), and vectors computed from the
 * words (a bag of seeded random directions, normalised) instead of the model, so that building takes
 * seconds. Queries are embedded by the real model; dense results are then arbitrary but deterministic,
 * which is all an equality test needs.
 */
public final class ShardedCorpus {
  public static final List<String> WORDS = List.of("lava", "magma", "ash", "crust", "yeast", "dough", "oven",
      "loaf", "pawn", "king", "opening", "defence", "whale", "krill", "ocean", "commit", "branch", "rebase",
      "runner", "race", "endurance", "river", "delta", "glacier", "forest", "desert", "storm", "thunder",
      "market", "price", "trade", "engine", "piston", "fuel", "orbit", "planet", "comet", "signal", "noise");
  public static final List<String> TOPICS = List.of("geology", "cooking", "games", "biology", "software");
  public static final int DIMENSION = 384;

  private ShardedCorpus() {}

  /** Writes the snapshot under {@code root} (publishing it) and returns its id. */
  public static String write(Path root, int chunks, int shards, long seed) throws IOException {
    return write(root, chunks, shards, seed, null);
  }

  /**
   * As {@link #write(Path, int, int, long)}, the manifest naming a model of this fingerprint (null:
   * the fixture's model, without one).
   */
  public static String write(Path root, int chunks, int shards, long seed, String modelFingerprint)
      throws IOException {
    return write(root, chunks, shards, seed, modelFingerprint, false);
  }

  /**
   * As {@link #write(Path, int, int, long)}, built with parent-child chunking: three documents of four
   * have a parent (id {@code docN#p0}, the text {@code "Parent of docN: "} and its chunks' texts), which
   * their chunks name in {@code parent_id}; the fourth's chunks stand for themselves. Each parent is
   * stored in its chunks' shard's docstore part, as the build stores it.
   */
  public static String writeWithParents(Path root, int chunks, int shards, long seed) throws IOException {
    return write(root, chunks, shards, seed, null, true);
  }

  private static String write(Path root, int chunks, int shards, long seed, String modelFingerprint,
      boolean withParents) throws IOException {
    Random random = new Random(seed);
    List<List<Chunk>> perShard = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      perShard.add(new ArrayList<>());
    }
    Map<String, ParentChunk> parents = new LinkedHashMap<>();
    Map<String, Integer> parentShard = new HashMap<>();
    for (int i = 0; i < chunks; i++) {
      StringBuilder text = new StringBuilder();
      int words = 5 + random.nextInt(20);
      for (int w = 0; w < words; w++) {
        // Skewed: low indexes far more often, and shard-dependent, so per-shard statistics differ.
        int shardBias = i % shards;
        int idx = (int) Math.min(WORDS.size() - 1, Math.abs(random.nextGaussian()) * 8 + shardBias * 3);
        text.append(w == 0 ? "" : " ").append(WORDS.get(idx));
      }
      String doc = "doc" + (i / 2);
      Map<String, String> metadata = new HashMap<>(Map.of("topic", TOPICS.get(random.nextInt(TOPICS.size())),
          "lang", random.nextInt(10) == 0 ? "fr" : "en"));
      int shard = Math.floorMod(doc.hashCode(), shards);
      if (withParents && (i / 2) % 4 != 3) {
        String parentId = doc + "#p0";
        metadata.put("parent_id", parentId);
        ParentChunk p = parents.get(parentId);
        String parentText = (p == null ? "Parent of " + doc + ":" : p.text()) + " " + text;
        parents.put(parentId, new ParentChunk(parentId, doc, 0, "Title " + doc, "Title " + doc, parentText,
            parentText.split(" ").length));
        parentShard.put(parentId, shard);
      }
      // A document's chunks in one shard, as the build routes them.
      perShard.get(shard).add(SnapshotFixture.chunk(doc, i % 2, "Title " + doc, text.toString(), metadata));
    }
    SnapshotFixture fixture = SnapshotFixture.withVectors(ShardedCorpus::vector).modelFingerprint(modelFingerprint)
        .shards(perShard);
    if (withParents) {
      List<List<ParentChunk>> parentsPerShard = new ArrayList<>();
      for (int s = 0; s < shards; s++) {
        parentsPerShard.add(new ArrayList<>());
      }
      parents.forEach((id, p) -> parentsPerShard.get(parentShard.get(id)).add(p));
      fixture.parents(parentsPerShard);
    }
    return fixture.write(root);
  }

  /** A bag of seeded directions of the chunk's words, normalised. */
  static float[] vector(Chunk chunk) {
    float[] v = new float[DIMENSION];
    for (String word : chunk.text().split(" ")) {
      Random r = new Random(word.hashCode());
      for (int d = 0; d < DIMENSION; d++) {
        v[d] += (float) r.nextGaussian();
      }
    }
    Random noise = new Random(chunk.chunkId().hashCode());
    double norm = 0;
    for (int d = 0; d < DIMENSION; d++) {
      v[d] += (float) (noise.nextGaussian() * 0.5);
      norm += v[d] * v[d];
    }
    float inv = (float) (1 / Math.sqrt(norm));
    for (int d = 0; d < DIMENSION; d++) {
      v[d] *= inv;
    }
    return v;
  }
}
