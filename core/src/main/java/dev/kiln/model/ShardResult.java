package dev.kiln.model;

import dev.kiln.snapshot.Manifest;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a shard writer reports when it has finished one shard: where it is, what it holds, and each
 * of its files with size and SHA-256, computed by the writer from the files it just wrote, so that
 * the job's committer can write the manifest without reading a shard back (nor downloading one from
 * a remote root).
 *
 * @param shard shard number
 * @param directory where the shard's Lucene index was written (for a remote root, its URI there)
 * @param chunks chunks written
 * @param documents distinct documents written
 * @param writerSubtask the subtask that wrote it (two results for one shard mean two attempts)
 * @param files the shard directory's files (names relative to it), empty when not described
 * @param recall the recall probe's recall@k on this shard, NaN when the probe is off
 * @param segmentsBefore segments when the writer closed, before the merge to {@code index.max-segments}
 * @param segmentsAfter segments after that merge
 */
public record ShardResult(int shard, String directory, long chunks, long documents, int writerSubtask,
    List<Manifest.FileEntry> files, double recall, int segmentsBefore, int segmentsAfter)
    implements Serializable {

  public ShardResult {
    files = new ArrayList<>(files); // a plain list: Flink ships it with Kryo
  }

  /** A result whose files are not described (yet). */
  public ShardResult(int shard, String directory, long chunks, long documents, int writerSubtask) {
    this(shard, directory, chunks, documents, writerSubtask, List.of(), Double.NaN, 0, 0);
  }

  /** The same result, with the shard's files now at {@code uploaded} (a remote root). */
  public ShardResult at(String uploaded) {
    return new ShardResult(shard, uploaded, chunks, documents, writerSubtask, files, recall, segmentsBefore,
        segmentsAfter);
  }
}
