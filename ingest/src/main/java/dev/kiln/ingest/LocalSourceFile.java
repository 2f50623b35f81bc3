package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;

/**
 * A corpus file on this machine's disk, read without a cluster (tests, benchmarks, tools). Its URI is
 * the one the build job gives the same file ({@code file:} and the absolute path), so document ids
 * relative to a corpus root come out the same.
 */
public final class LocalSourceFile implements SourceFile {
  private final Path path;
  private final String uri;
  private final long size;
  private final long modified;

  public LocalSourceFile(Path path) throws IOException {
    this.path = path.toAbsolutePath();
    this.uri = uri(path);
    this.size = Files.size(path);
    this.modified = Files.getLastModifiedTime(path).toMillis();
  }

  /**
   * The URI of a local file or directory as Flink names it ({@code Path.fromLocalFile}): {@code file:} and
   * the absolute path, a directory's ending in {@code /}.
   */
  public static String uri(Path path) {
    String p = path.toAbsolutePath().normalize().toString().replace(File.separatorChar, '/');
    return "file:" + (p.startsWith("/") ? "" : "/") + p + (Files.isDirectory(path) && !p.endsWith("/") ? "/" : "");
  }

  @Override
  public String uri() {
    return uri;
  }

  @Override
  public String name() {
    return path.getFileName().toString();
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
    FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
    try {
      channel.position(offset);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    return Channels.newInputStream(channel);
  }

  @Override
  public File localFile() {
    return path.toFile();
  }

  @Override
  public InputFile parquetFile() {
    return new LocalInputFile(path);
  }

  @Override
  public String toString() {
    return uri;
  }
}
