package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.management.ThreadMXBean;
import dev.kiln.chunk.DocumentChunker;
import dev.kiln.config.ChunkerConfig;
import dev.kiln.config.IngestConfig;
import dev.kiln.embed.ModelRegistry;
import dev.kiln.embed.ModelTokenizer;
import dev.kiln.model.Chunk;
import dev.kiln.model.Document;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;

/**
 * Test helper: a PDF or Office file read as the job reads it (by the reader {@link CorpusReaders} opens),
 * parsed by {@link RecordParser} and cut by the configured chunker with the default model's tokenizer.
 */
final class ExtractedFiles {
  private ExtractedFiles() {}

  /** The one record a document file becomes. */
  static RawRecord record(Path file, long maxRecordBytes, long maxSpoolBytes) throws IOException {
    String name = file.getFileName().toString();
    assertFalse(CorpusReaders.isSplittable(CorpusReaders.formatOf(InputFormat.AUTO, name), name),
        "a document file is never split");
    List<RawRecord> records = LocalCorpus.readFile(file, InputFormat.AUTO,
        new ReadOptions(maxRecordBytes, maxSpoolBytes, null, null));
    assertEquals(1, records.size(), "a document file is one record");
    return records.get(0);
  }

  /**
   * One file read as {@link #record(Path, long, long)} reads it, with what that cost this thread: its CPU
   * time (not wall time, which other processes on the machine stretch) and the bytes it allocated on the
   * heap. Allocated bytes bound the heap a read can have held at any moment from above, so a small
   * figure shows the reader never built a tree of the file.
   */
  static Cost cost(Path file, long maxRecordBytes) throws IOException {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime();
    long allocated = threads.getCurrentThreadAllocatedBytes();
    RawRecord r = record(file, maxRecordBytes, 1L << 30);
    return new Cost(r, (threads.getCurrentThreadCpuTime() - cpu) / 1_000_000,
        threads.getCurrentThreadAllocatedBytes() - allocated);
  }

  record Cost(RawRecord record, long cpuMillis, long allocatedBytes) {
    long allocatedMb() {
      return allocatedBytes >> 20;
    }

    @Override
    public String toString() {
      return cpuMillis + " ms CPU, " + allocatedMb() + " MB allocated: " + record.problem() + " "
          + record.payload().substring(0, Math.min(300, record.payload().length()));
    }
  }

  static RawRecord record(Path file) throws IOException {
    return record(file, 1 << 20, 1L << 30);
  }

  /** The reason the file is quarantined under (asserting it is). */
  static String problem(Path file) throws IOException {
    RawRecord r = record(file);
    assertNotNull(r.problem(), "expected a quarantined record, got " + r.payload());
    return r.problem();
  }

  /** The document the file becomes, ids relative to {@code root}. */
  static Document document(Path root, Path file) throws Exception {
    RawRecord r = record(file);
    assertNull(r.problem(), () -> r.payload());
    return new RecordParser(List.of(LocalSourceFile.uri(root)), new IngestConfig()).parse(r);
  }

  static List<Chunk> chunks(Document doc) throws Exception {
    try (ModelTokenizer tokenizer = ModelTokenizer.open(ModelRegistry.resolve(ModelRegistry.DEFAULT_MODEL))) {
      return new DocumentChunker(tokenizer, new ChunkerConfig()).cut(doc).chunks();
    }
  }

  /** The chunk whose text contains {@code words}. */
  static Chunk chunkWith(List<Chunk> chunks, String words) {
    return chunks.stream().filter(c -> c.text().contains(words)).findFirst()
        .orElseThrow(() -> new AssertionError("no chunk has '" + words + "': " + chunks));
  }
}
