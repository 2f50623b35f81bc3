package dev.kiln.bench;

import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.TextEmbedder;
import dev.kiln.eval.Queries;
import dev.kiln.index.ShardSchema;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;

/**
 * Real benchmark data, read from a published Kiln snapshot: every chunk's text and embedding, plus the
 * dataset's queries (as text, and embedded with the snapshot's model, cached next to the snapshot).
 * Both sides of every comparison get exactly these arrays.
 */
public final class BenchData {
  public final String snapshotId;
  public final Manifest manifest;
  public final List<String> chunkIds = new ArrayList<>();
  public final List<String> docIds = new ArrayList<>();
  public final List<String> texts = new ArrayList<>();
  public final List<float[]> vectors = new ArrayList<>();
  public final List<String> queryTexts = new ArrayList<>();
  public float[][] queryVectors;

  private BenchData(String snapshotId, Manifest manifest) {
    this.snapshotId = snapshotId;
    this.manifest = manifest;
  }

  /** Snapshots root from {@code -Dkiln.bench.snapshots} (scripts/bench.sh builds it). */
  public static Path snapshotsRoot() {
    return Path.of(System.getProperty("kiln.bench.snapshots", "kiln-data/bench/cranfield/snapshots"));
  }

  public static Path queriesFile() {
    return Path.of(System.getProperty("kiln.bench.queries", "../shared/datasets/cranfield/queries.jsonl"));
  }

  public static BenchData load() throws IOException {
    SnapshotStore store = new SnapshotStore(snapshotsRoot());
    String id = store.currentId();
    Manifest m = store.open(id);
    BenchData data = new BenchData(id, m);
    for (Manifest.ShardEntry shard : m.shards()) {
      Path dir = store.layout().snapshotDir(id).resolve(shard.directory());
      try (FSDirectory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
        for (LeafReaderContext ctx : reader.leaves()) {
          data.readLeaf(ctx.reader());
        }
      }
    }
    Queries queries = Queries.read(queriesFile());
    for (String qid : queries.ids()) {
      data.queryTexts.add(queries.text(qid));
    }
    data.queryVectors = cachedQueryVectors(store.layout().snapshotDir(id).resolveSibling(id + ".bench-queries.bin"),
        m.model().name(), data.queryTexts);
    return data;
  }

  private void readLeaf(LeafReader leaf) throws IOException {
    StoredFields stored = leaf.storedFields();
    FloatVectorValues values = leaf.getFloatVectorValues(ShardSchema.VECTOR);
    KnnVectorValues.DocIndexIterator it = values.iterator();
    for (int doc = it.nextDoc(); doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
      var fields = stored.document(doc);
      chunkIds.add(fields.get(ShardSchema.CHUNK_ID));
      docIds.add(fields.get(ShardSchema.DOC_ID));
      texts.add(fields.get(ShardSchema.TEXT));
      vectors.add(values.vectorValue(it.index()).clone());
    }
  }

  private static float[][] cachedQueryVectors(Path cache, String model, List<String> texts) throws IOException {
    if (Files.isRegularFile(cache)) {
      try (DataInputStream in = new DataInputStream(Files.newInputStream(cache))) {
        int n = in.readInt();
        int d = in.readInt();
        if (n == texts.size()) {
          float[][] v = new float[n][d];
          for (float[] row : v) {
            for (int j = 0; j < d; j++) {
              row[j] = in.readFloat();
            }
          }
          return v;
        }
      }
    }
    float[][] v;
    try (TextEmbedder embedder = TextEmbedder.open(ModelRegistry.resolve(model), 32, 2)) {
      v = new float[texts.size()][];
      for (int i = 0; i < texts.size(); i++) {
        v[i] = embedder.embedQuery(texts.get(i));
      }
    }
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(cache))) {
      out.writeInt(v.length);
      out.writeInt(v[0].length);
      for (float[] row : v) {
        for (float x : row) {
          out.writeFloat(x);
        }
      }
    }
    return v;
  }
}
