package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.InputFile;

/**
 * The file of a split of Flink's file source as the readers' {@link SourceFile}: read through Flink's file
 * systems (local, S3, HDFS), Parquet through {@link FlinkInputFile}.
 */
final class FlinkSourceFile implements SourceFile {
  private final Path path;
  private final String uri;
  private final long size;
  private final long modified;

  FlinkSourceFile(FileSourceSplit split) {
    this.path = split.path();
    this.uri = path.toString();
    this.size = split.fileSize();
    this.modified = split.fileModificationTime();
  }

  @Override
  public String uri() {
    return uri;
  }

  @Override
  public String name() {
    return path.getName();
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public long modified() {
    return modified;
  }

  @Override
  public InputStream open(long offset) throws IOException {
    FSDataInputStream in = FileSystem.get(path.toUri()).open(path);
    if (offset > 0) {
      in.seek(offset);
    }
    return in;
  }

  @Override
  public File localFile() throws IOException {
    boolean local = !FileSystem.get(path.toUri()).isDistributedFS() && "file".equals(path.toUri().getScheme());
    return local ? new File(path.toUri()) : null;
  }

  @Override
  public InputFile parquetFile() {
    return new FlinkInputFile(path, size);
  }

  @Override
  public String toString() {
    return uri;
  }
}
