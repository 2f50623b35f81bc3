package dev.kiln.index;

import org.apache.lucene.index.CodecReader;
import org.apache.lucene.index.FilterCodecReader;
import org.apache.lucene.util.Bits;

/**
 * A segment seen with only some of its documents live: what a shard writer copies from its base
 * ({@link ShardIndexWriter#restore}, {@link RelocatedChunks}) through {@code addIndexes}.
 */
class OnlyDocs extends FilterCodecReader {
  private final Bits live;
  private final int numDocs;

  OnlyDocs(CodecReader in, Bits live, int numDocs) {
    super(in);
    this.live = live;
    this.numDocs = numDocs;
  }

  @Override
  public Bits getLiveDocs() {
    return live;
  }

  @Override
  public int numDocs() {
    return numDocs;
  }

  @Override
  public CacheHelper getCoreCacheHelper() {
    return null;
  }

  @Override
  public CacheHelper getReaderCacheHelper() {
    return null;
  }
}
