package dev.kiln.operators;

import dev.kiln.config.IndexConfig;
import dev.kiln.index.RelocatedChunks;
import dev.kiln.index.ShardSchema;
import dev.kiln.model.RecordPosition;
import dev.kiln.operators.fs.BaseShard;
import dev.kiln.snapshot.LocalFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;

/**
 * What the moved-record check costs a shard writer of an incremental build, on a real base shard: every
 * live document of the shard offered as an unchanged record and the base pruned, once with the file
 * each record was read from (the check, {@link ContinuedShard#pruneBase}) and once without (no check),
 * alternating. With {@code MOVED_PERCENT} (default 0), that share of the documents (every n-th) is
 * offered as read from another file: the check then finds them moved and copies their chunks with the
 * new position ({@link RelocatedChunks}), timed within prune, and the shard's commit is timed too.
 * Arguments: {@code BASE_SHARD_DIR SCRATCH_DIR ROUNDS [MOVED_PERCENT]}. Prints one line per round.
 */
public final class PruneCheckTiming {
  private PruneCheckTiming() {}

  public static void main(String[] args) throws Exception {
    Path baseShard = Path.of(args[0]);
    Path scratch = Path.of(args[1]);
    int rounds = Integer.parseInt(args[2]);
    double movedPercent = args.length > 3 ? Double.parseDouble(args[3]) : 0;
    int every = movedPercent > 0 ? (int) Math.round(100 / movedPercent) : Integer.MAX_VALUE;
    List<String> ids = new ArrayList<>();
    List<RecordPosition> at = new ArrayList<>();
    try (DirectoryReader r = DirectoryReader.open(FSDirectory.open(baseShard))) {
      for (LeafReaderContext leaf : r.leaves()) {
        var live = leaf.reader().getLiveDocs();
        var terms = leaf.reader().terms(ShardSchema.DOC_ID).iterator();
        PostingsEnum p = null;
        for (var term = terms.next(); term != null; term = terms.next()) {
          p = terms.postings(p, PostingsEnum.NONE);
          for (int d = p.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = p.nextDoc()) {
            if (live == null || live.get(d)) {
              SortedDocValues src = leaf.reader().getSortedDocValues(ShardSchema.SOURCE);
              src.advanceExact(d);
              ids.add(term.utf8ToString());
              at.add(new RecordPosition(src.lookupOrd(src.ordValue()).utf8ToString(), d));
              break;
            }
          }
        }
      }
    }
    System.out.println(ids.size() + " documents offered");
    IndexConfig config = new IndexConfig();
    for (int round = 0; round < rounds; round++) {
      for (boolean check : new boolean[] {true, false}) {
        Path dir = scratch.resolve("round-" + round + (check ? "-check" : "-plain"));
        ContinuedShard.Counters c = new ContinuedShard.Counters(new LongCounter(), new LongCounter(),
            new LongCounter(), new LongCounter(), new LongCounter());
        long t0 = System.nanoTime();
        long t2;
        ContinuedShard s = ContinuedShard.open(dir, new BaseShard.Local(baseShard), config, 384, true, c);
        try (s) {
          for (int i = 0; i < ids.size(); i++) {
            RecordPosition p = at.get(i);
            if (movedPercent > 0 && i % every == 0) {
              p = new RecordPosition("file:/moved/part-" + (i % 7) + ".parquet", i);
            }
            s.unchanged(ids.get(i), DocumentWinners.Decision.WRITE, check ? p : null);
          }
          long t1 = System.nanoTime();
          s.finishIncremental();
          t2 = System.nanoTime();
          System.out.printf("round %d %s: offer %.2f s, prune %.2f s, moved %d, relocated %d, pruned %d%n", round,
              check ? "check" : "plain", (t1 - t0) / 1e9, (t2 - t1) / 1e9, s.moved(), s.relocated(),
              c.pruned().getLocalValue());
        }
        System.out.printf("round %d %s: commit %.2f s%n", round, check ? "check" : "plain",
            (System.nanoTime() - t2) / 1e9);
        LocalFiles.deleteTree(dir, (p, e) -> {}); // a leftover file costs disk, not the timing
      }
    }
  }
}
