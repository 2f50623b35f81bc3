package dev.kiln.publish;

import dev.kiln.config.IndexConfig;
import dev.kiln.config.VectorEncoding;
import dev.kiln.index.KnnSearch;
import dev.kiln.snapshot.HeldRecord;
import dev.kiln.snapshot.SnapshotLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The recall gate before publishing: {@link RecallProbe} on every shard of a snapshot, against
 * {@code index.recall-floor}. A shard below the floor refuses the whole snapshot, so it is never
 * published. (Lucene searches segments under 100 vectors exactly, so small shards always reach 1.0.)
 */
public final class RecallFloor {
  private RecallFloor() {}

  /**
   * Probes each shard and throws a {@link GateFailedException} naming every shard below the floor, its
   * recall and the floor.
   *
   * @return the lowest recall over the shards
   */
  public static double enforce(SnapshotLayout layout, String id, List<Integer> shards, IndexConfig index)
      throws IOException {
    Map<Integer, Double> recalls = new TreeMap<>();
    for (int shard : shards) {
      recalls.put(shard, probe(layout.shardDir(id, shard), shard, index));
    }
    return check(id, recalls, index);
  }

  /** The probe on one shard as the gate runs it (seeded by the shard number, so reruns agree). */
  public static double probe(Path shardDir, int shard, IndexConfig index) throws IOException {
    return probe(shardDir, shard, index, Set.of());
  }

  /**
   * The probe on the segments of one shard not named in {@code unchanged} (an incremental build's base
   * segments, {@link RecallProbe#recall(java.nio.file.Path, int, int, int, boolean, long, java.util.Set)}).
   */
  public static double probe(Path shardDir, int shard, IndexConfig index,
      Set<String> unchanged) throws IOException {
    try (FSDirectory dir = FSDirectory.open(shardDir)) {
      return probe(dir, shard, index, unchanged);
    }
  }

  /** As above, for a shard opened as a Lucene directory (closed by the caller). */
  public static double probe(Directory shardDir, int shard, IndexConfig index, Set<String> unchanged)
      throws IOException {
    return RecallProbe.recall(shardDir, index.recallProbeSamples, index.recallProbeK, KnnSearch.AUTO_EF,
        VectorEncoding.parse(index.vectorEncoding).quantized(), 17L * shard + 1, unchanged);
  }

  /**
   * Applies the floor to recalls already measured (by the shard writers, on the files they wrote).
   *
   * @return the lowest recall over the shards
   * @throws GateFailedException naming every shard below the floor
   */
  public static double check(String id, Map<Integer, Double> recalls, IndexConfig index) {
    double min = 1.0;
    List<String> low = new ArrayList<>();
    for (Map.Entry<Integer, Double> e : recalls.entrySet()) {
      double recall = e.getValue();
      min = Math.min(min, recall);
      if (recall < index.recallFloor) {
        low.add(String.format(Locale.ROOT, "shard %d recall@%d %.3f", e.getKey(), index.recallProbeK, recall));
      }
    }
    if (!low.isEmpty()) {
      throw new GateFailedException(HeldRecord.RECALL_FLOOR, "snapshot " + id
          + " will not be published: the recall probe is below index.recall-floor " + index.recallFloor + " ("
          + String.join(", ", low) + "); build more, smaller shards (--shards; a shard"
          + " is one HNSW graph, and a smaller graph reaches more of the true top k at the same depth), raise"
          + " index.hnsw-beam-width / index.hnsw-m, or lower the floor (the probe searches as queries do, at the"
          + " searcher's default depth)", null);
    }
    return min;
  }
}
