package dev.kiln.ingest;

import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A Parquet {@link InputFile} on a Flink file system, so Parquet corpora work on S3 and HDFS alike. */
final class FlinkInputFile implements InputFile {
  private final Path path;
  private final long length;

  FlinkInputFile(Path path, long length) {
    this.path = path;
    this.length = length;
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    FSDataInputStream in = FileSystem.get(path.toUri()).open(path);
    return new DelegatingSeekableInputStream(in) {
      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }
    };
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
