package dev.kiln.bench;

import dev.kiln.eval.Queries;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchOptions;
import dev.kiln.search.Searcher;
import dev.kiln.search.filter.MetadataFilter;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotLayout;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.codecs.CompoundDirectory;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Dense recall@k against an exact scan, and the vector bytes per chunk, of one or more snapshots
 * at several query-time candidate depths ({@code --ef}): the measurement behind the default ef and
 * the vector-encoding trade-off table (docs/results/quantization.md). Queries are real queries
 * embedded with the snapshots' model once; a hit counts when its full-precision score reaches the
 * exact k-th best (ties never count as misses).
 *
 * <pre>java -cp … dev.kiln.bench.DenseRecall SNAPSHOTS QUERIES.jsonl K EF[,EF…] [SNAPSHOT_ID…]</pre>
 */
public final class DenseRecall {
  private DenseRecall() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    Queries queries = Queries.read(Path.of(args[1]));
    int k = Integer.parseInt(args[2]);
    List<Integer> efs = new ArrayList<>();
    for (String e : args[3].split(",")) {
      efs.add(Integer.parseInt(e));
    }
    SnapshotStore store = new SnapshotStore(root);
    List<String> ids = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      ids.add(args[i]);
    }
    if (ids.isEmpty()) {
      ids.add(store.currentId());
    }
    List<float[]> vectors = null;
    System.out.println("snapshot | encoding | ef | recall@" + k + " | mean us/query | vector bytes/chunk | walked bytes/chunk");
    for (String id : ids) {
      for (int ef : efs) {
        try (Searcher searcher = Searcher.builder().root(root).snapshot(id)
            .options(SearchOptions.defaults().withEf(ef)).build()) {
          if (vectors == null) {
            vectors = new ArrayList<>();
            for (String q : queries.ids()) {
              vectors.add(searcher.embedQuery(queries.text(q)));
            }
          }
          for (float[] v : vectors) { // warm-up
            searcher.dense(v, k);
          }
          double recall = 0;
          long nanos = 0;
          for (float[] v : vectors) {
            long t0 = System.nanoTime();
            List<SearchHit> ann = searcher.dense(v, k);
            nanos += System.nanoTime() - t0;
            List<SearchHit> exact = searcher.exactDense(v, k, MetadataFilter.none());
            double kth = exact.get(exact.size() - 1).score();
            int hits = 0;
            for (SearchHit h : ann) {
              if (h.score() >= kth - 1e-6) {
                hits++;
              }
            }
            recall += (double) hits / exact.size();
          }
          Map<String, Long> bytes = vectorBytes(store.layout(), store.open(id));
          long chunks = searcher.chunkCount();
          long all = bytes.values().stream().mapToLong(Long::longValue).sum();
          // What a graph walk reads: the graph and the vectors it scores (quantised ones if any).
          long walked = bytes.getOrDefault("vex", 0L) + (bytes.containsKey("veq") ? bytes.get("veq") : bytes.getOrDefault("vec", 0L));
          System.out.printf(Locale.ROOT, "%s | %s | %d | %.4f | %.0f | %.0f | %.0f   %s%n", id,
              searcher.manifest().index().encoding().label(), ef, recall / vectors.size(),
              nanos / 1000.0 / vectors.size(), (double) all / chunks, (double) walked / chunks, bytes);
        }
      }
    }
  }

  /** Bytes of each vectors file (by extension) over a snapshot's shards, looking inside compound files. */
  static Map<String, Long> vectorBytes(SnapshotLayout layout, Manifest manifest) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    for (Manifest.ShardEntry shard : manifest.shards()) {
      try (Directory dir = FSDirectory.open(layout.snapshotDir(manifest.id()).resolve(shard.directory()))) {
        for (SegmentCommitInfo si : SegmentInfos.readLatestCommit(dir)) {
          if (si.info.getUseCompoundFile()) {
            try (CompoundDirectory cfs = si.info.getCodec().compoundFormat()
                .getCompoundReader(dir, si.info)) {
              add(cfs, out);
            }
          } else {
            for (String f : si.files()) {
              addFile(dir, f, out);
            }
          }
        }
      }
    }
    return out;
  }

  private static void add(Directory dir, Map<String, Long> out) throws IOException {
    for (String f : dir.listAll()) {
      addFile(dir, f, out);
    }
  }

  private static void addFile(Directory dir, String f, Map<String, Long> out) throws IOException {
    String ext = f.substring(f.lastIndexOf('.') + 1);
    if (ext.startsWith("ve")) { // vec raw, veq quantised, vex graph, vem/vemf/vemq metadata
      out.merge(ext, dir.fileLength(f), Long::sum);
    }
  }
}
