package dev.kiln.ingest;

import dev.kiln.model.RawRecord;
import java.util.List;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.ArrayResultIterator;

/** Turning a list of records into the iterator a {@link BulkFormat.Reader} hands back. */
final class RecordBatches {
  private RecordBatches() {}

  /** Records per batch handed to Flink: large enough to amortise the hand-over, small enough to stream. */
  static final int SIZE = 512;

  static BulkFormat.RecordIterator<RawRecord> of(List<RawRecord> records) {
    if (records.isEmpty()) {
      return null;
    }
    ArrayResultIterator<RawRecord> it = new ArrayResultIterator<>();
    it.set(records.toArray(new RawRecord[0]), records.size(), 0L, 0L);
    return it;
  }

  /** A reader that produces nothing (a file the format does not read). */
  static final class Empty implements BulkFormat.Reader<RawRecord> {
    @Override
    public BulkFormat.RecordIterator<RawRecord> readBatch() {
      return null;
    }

    @Override
    public void close() {}
  }
}
