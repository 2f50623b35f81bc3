package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: reads local corpus files with the readers the build job uses ({@link CorpusReaders}),
 * without Flink: every file under the roots, directories in name order and names starting with
 * {@code .} or {@code _} left out as the job's listing leaves them, each file whole (the job's splits
 * of large files are {@code CorpusFileEnumerator}'s, tested in operators).
 */
final class LocalCorpus {
  private LocalCorpus() {}

  static List<RawRecord> read(InputFormat format, long maxRecordBytes, Path... roots) throws IOException {
    return read(format, ReadOptions.withMaxRecordBytes(maxRecordBytes), roots);
  }

  static List<RawRecord> read(InputFormat format, ReadOptions options, Path... roots) throws IOException {
    List<RawRecord> out = new ArrayList<>();
    for (Path root : roots) {
      walk(root, format, options, out);
    }
    return out;
  }

  private static void walk(Path path, InputFormat format, ReadOptions options, List<RawRecord> out)
      throws IOException {
    String name = path.getFileName().toString();
    if (name.startsWith(".") || name.startsWith("_")) {
      return;
    }
    if (!Files.isDirectory(path)) {
      out.addAll(readFile(path, format, options));
      return;
    }
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
      entries.forEach(children::add);
    }
    children.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    for (Path child : children) {
      walk(child, format, options, out);
    }
  }

  /** The records of one file, read whole by the reader of its format (none when no format reads it). */
  static List<RawRecord> readFile(Path file, InputFormat format, ReadOptions options) throws IOException {
    InputFormat fileFormat = CorpusReaders.formatOf(format, file.getFileName().toString());
    if (fileFormat == null) {
      return List.of();
    }
    SourceFile source = new LocalSourceFile(file);
    List<RawRecord> out = new ArrayList<>();
    try (BatchReader reader = CorpusReaders.open(source, fileFormat, 0, source.size(), options)) {
      for (List<RawRecord> batch; !(batch = reader.readBatch()).isEmpty(); ) {
        out.addAll(batch);
      }
    }
    return out;
  }
}
