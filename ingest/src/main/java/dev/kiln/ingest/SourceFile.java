package dev.kiln.ingest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import org.apache.parquet.io.InputFile;

/**
 * A corpus file as the readers see it, wherever it lies: its name, size and time, its bytes as a stream
 * or with random access (Parquet), and the file itself when it is on the local disk (the PDF and
 * Office libraries read a local file without loading it). {@link LocalSourceFile} is a file on this
 * machine; the build job's is a file of any Flink file system ({@code FlinkSourceFile} in operators).
 */
public interface SourceFile {
  /** The URI records from the file carry as their source. */
  String uri();

  /** The file's name, the last segment of its path: its extension names its format, {@code .gz} its compression. */
  String name();

  /** The file's size on its file system (compressed size for {@code .gz}). */
  long size();

  /** The file's modification time, epoch milliseconds. */
  long modified();

  /** The raw bytes (never decompressed) from {@code offset} on. */
  InputStream open(long offset) throws IOException;

  /** The file itself when it is a plain file on the local disk, else {@code null}. */
  File localFile() throws IOException;

  /** The file for random access by Parquet's reader. */
  InputFile parquetFile() throws IOException;
}
