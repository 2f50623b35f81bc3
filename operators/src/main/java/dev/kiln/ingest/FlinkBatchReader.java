package dev.kiln.ingest;

import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.List;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.ArrayResultIterator;

/** A {@link BatchReader} as the {@link BulkFormat.Reader} of Flink's file source: each batch handed on as it is. */
final class FlinkBatchReader implements BulkFormat.Reader<RawRecord> {
  private final BatchReader reader;

  FlinkBatchReader(BatchReader reader) {
    this.reader = reader;
  }

  @Override
  public BulkFormat.RecordIterator<RawRecord> readBatch() throws IOException {
    return of(reader.readBatch());
  }

  /** The batch as the iterator Flink takes, {@code null} (the end of the split) for an empty one. */
  static BulkFormat.RecordIterator<RawRecord> of(List<RawRecord> records) {
    if (records.isEmpty()) {
      return null;
    }
    ArrayResultIterator<RawRecord> it = new ArrayResultIterator<>();
    it.set(records.toArray(new RawRecord[0]), records.size(), 0L, 0L);
    return it;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
