package dev.kiln.ingest;

import dev.kiln.model.RawRecord;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * The records of one corpus file, or of one byte range of it, a batch at a time: what every format's
 * reader is ({@link JsonLinesReader}, {@link WholeFileReader}, {@link ParquetRowReader}, {@link
 * DocumentFileReader}). Opened by {@link CorpusReaders}; the build job hands the batches to Flink as
 * they are ({@code FlinkBatchReader} in operators).
 */
public interface BatchReader extends Closeable {
  /** Records per batch: large enough to amortise the hand-over, small enough to stream. */
  int SIZE = 512;

  /** The next records, at most {@link #SIZE}; an empty list when the file (or range) has no more. */
  List<RawRecord> readBatch() throws IOException;

  /** A reader of one record (a file reported whole as a quarantine record). */
  static BatchReader of(RawRecord record) {
    return new BatchReader() {
      private boolean done;

      @Override
      public List<RawRecord> readBatch() {
        if (done) {
          return List.of();
        }
        done = true;
        return List.of(record);
      }

      @Override
      public void close() {}
    };
  }

  /** A reader that produces nothing (a file, or a range of one, that holds no record of its own). */
  static BatchReader empty() {
    return new BatchReader() {
      @Override
      public List<RawRecord> readBatch() {
        return List.of();
      }

      @Override
      public void close() {}
    };
  }
}
