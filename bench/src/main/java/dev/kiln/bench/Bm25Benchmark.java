package dev.kiln.bench;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.Searcher;
import dev.kiln.snapshot.Manifest;
import dev.kiln.snapshot.SnapshotStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * BM25 top-10 latency on the snapshot's shards: Kiln's {@link Searcher#bm25} (query analysis, hit
 * reading with stored text and metadata) vs a bare Lucene {@link IndexSearcher} over the same shards
 * with a bag-of-words {@link BooleanQuery} that loads its ten hits' stored fields, as any caller that
 * wants the text must: the same work on both sides (until 2026-12-03 the bare side read no stored
 * fields, which made Kiln look 0.44x as fast). One op = one query.
 * Average time mode because latency is what a searcher's user feels.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class Bm25Benchmark {
  BenchData data;
  Searcher kiln;
  IndexReader rawReader;
  IndexSearcher raw;
  final Analyzer analyzer = new EnglishAnalyzer();
  int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    data = BenchData.load();
    kiln = Searcher.builder().root(BenchData.snapshotsRoot()).snapshot(data.snapshotId).build();
    SnapshotStore store = new SnapshotStore(BenchData.snapshotsRoot());
    List<IndexReader> shards = new ArrayList<>();
    for (Manifest.ShardEntry s : data.manifest.shards()) {
      shards.add(DirectoryReader.open(FSDirectory.open(
          store.layout().snapshotDir(data.snapshotId).resolve(s.directory()))));
    }
    rawReader = new MultiReader(shards.toArray(new IndexReader[0]), true);
    raw = new IndexSearcher(rawReader);
    raw.setSimilarity(new BM25Similarity(0.9f, 0.4f));
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    kiln.close();
    rawReader.close();
  }

  private String nextQuery() {
    String q = data.queryTexts.get(next);
    next = (next + 1) % data.queryTexts.size();
    return q;
  }

  @Benchmark
  public void kilnSearcherBm25(Blackhole bh) {
    bh.consume(kiln.bm25(nextQuery(), 10));
  }

  @Benchmark
  public void rawLuceneBm25(Blackhole bh) throws IOException {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    try (TokenStream ts = analyzer.tokenStream(ShardSchema.TEXT, nextQuery())) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        b.add(new TermQuery(new Term(ShardSchema.TEXT, term.toString())), BooleanClause.Occur.SHOULD);
      }
      ts.end();
    }
    TopDocs top = raw.search(b.build(), 10);
    StoredFields stored = raw.storedFields();
    for (ScoreDoc sd : top.scoreDocs) {
      bh.consume(stored.document(sd.doc));
    }
  }
}
