package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.apache.flink.core.fs.Path;

/** Test helper: enumerates and reads corpus files exactly as the job's source does. */
final class CorpusFiles {
  private CorpusFiles() {}

  static List<RawRecord> read(InputFormat format, long splitBytes, java.nio.file.Path... roots) throws IOException {
    return read(new CorpusFileFormat(format, 1 << 20), splitBytes, roots);
  }

  static List<RawRecord> read(CorpusFileFormat f, long splitBytes, java.nio.file.Path... roots) throws IOException {
    Path[] paths = new Path[roots.length];
    for (int i = 0; i < roots.length; i++) {
      paths[i] = Path.fromLocalFile(roots[i].toFile());
    }
    Collection<FileSourceSplit> splits = new CorpusFileEnumerator(f, splitBytes).enumerateSplits(paths, 1);
    List<RawRecord> out = new ArrayList<>();
    for (FileSourceSplit s : splits) {
      out.addAll(read(f, s));
    }
    return out;
  }

  static List<RawRecord> read(CorpusFileFormat f, FileSourceSplit split) throws IOException {
    List<RawRecord> out = new ArrayList<>();
    try (BulkFormat.Reader<RawRecord> reader = f.createReader(new Configuration(), split)) {
      BulkFormat.RecordIterator<RawRecord> batch;
      while ((batch = reader.readBatch()) != null) {
        RecordAndPosition<RawRecord> r;
        while ((r = batch.next()) != null) {
          out.add(r.getRecord());
        }
        batch.releaseBatch();
      }
    }
    return out;
  }

  static int splitCount(InputFormat format, long splitBytes, java.nio.file.Path root) throws IOException {
    CorpusFileFormat f = new CorpusFileFormat(format, 1 << 20);
    return new CorpusFileEnumerator(f, splitBytes)
        .enumerateSplits(new Path[] {Path.fromLocalFile(root.toFile())}, 1).size();
  }
}
