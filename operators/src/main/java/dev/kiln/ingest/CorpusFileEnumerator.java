package dev.kiln.ingest;

import java.util.List;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * Lists corpus files recursively and cuts large uncompressed JSON-lines and Parquet files into byte
 * ranges of {@code splitBytes}, so one big file is read by several readers in parallel. Readers
 * align ranges to record boundaries themselves (lines, row groups); every other file is one split.
 * Unlike Flink's block splitter this works the same on every file system, local ones included.
 */
public final class CorpusFileEnumerator extends NonSplittingRecursiveEnumerator {
  private final CorpusFileFormat format;
  private final long splitBytes;

  public CorpusFileEnumerator(CorpusFileFormat format, long splitBytes) {
    this.format = format;
    this.splitBytes = splitBytes;
  }

  @Override
  protected void convertToSourceSplits(FileStatus file, FileSystem fs, List<FileSourceSplit> target) {
    long len = file.getLen();
    if (!format.isSplittable(file.getPath()) || len <= splitBytes) {
      target.add(new FileSourceSplit(getNextId(), file.getPath(), 0, len, file.getModificationTime(), len));
      return;
    }
    for (long off = 0; off < len; off += splitBytes) {
      target.add(new FileSourceSplit(getNextId(), file.getPath(), off, Math.min(splitBytes, len - off),
          file.getModificationTime(), len));
    }
  }
}
