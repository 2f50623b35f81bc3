package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files on the local file system, read through the same enumerator and readers the job uses. */
class CorpusFileFormatTest {
  @TempDir Path dir;

  private static List<String> payloads(List<RawRecord> records) {
    return records.stream().map(RawRecord::payload).toList();
  }

  @Test
  void splitsOfAJsonLinesFileReadEveryLineExactlyOnceWhateverTheSplitSize() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<String> lines = new ArrayList<>();
    StringBuilder file = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      String line = "{\"_id\": \"" + i + "\", \"text\": \"" + "x".repeat(random.nextInt(300)) + "\"}";
      lines.add(line);
      file.append(line).append(random.nextInt(10) == 0 ? "\r\n" : "\n");
      if (random.nextInt(20) == 0) {
        file.append("\n");   // blank lines are skipped, never records
      }
    }
    Path jsonl = dir.resolve("big.jsonl");
    Files.writeString(jsonl, file);
    for (long split : new long[] {4096, 4097, 5000 + random.nextInt(5000), 1 << 20}) {
      List<RawRecord> read = CorpusFiles.read(InputFormat.AUTO, split, dir);
      assertEquals(lines, payloads(read), "seed " + seed + ", split " + split);
      // Offsets point at the lines in the file.
      byte[] bytes = Files.readAllBytes(jsonl);
      RawRecord r = read.get(123);
      assertEquals(lines.get(123), new String(bytes, (int) r.offset(), lines.get(123).length(), StandardCharsets.UTF_8));
    }
    assertTrue(CorpusFiles.splitCount(InputFormat.AUTO, 4096, dir) > 10);
  }

  @Test
  void gzipFilesAreDecompressedAndNeverSplit() throws Exception {
    Path gz = dir.resolve("c.jsonl.gz");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      text.append("{\"_id\": \"").append(i).append("\", \"text\": \"some text ").append(i).append("\"}\n");
    }
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(text.toString().getBytes(StandardCharsets.UTF_8));
    }
    assertTrue(Files.size(gz) > 4096);
    assertEquals(1, CorpusFiles.splitCount(InputFormat.AUTO, 4096, dir));
    List<RawRecord> read = CorpusFiles.read(InputFormat.AUTO, 4096, dir);
    assertEquals(2000, read.size());
    assertEquals("{\"_id\": \"1999\", \"text\": \"some text 1999\"}", read.get(1999).payload());
  }

  @Test
  void badLinesBecomeRecordsWithAProblemAndTheLinesAfterThemSurvive() throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write("{\"_id\": \"a\", \"text\": \"fine\"}\n".getBytes(StandardCharsets.UTF_8));
    b.write(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}', '\n'});          // invalid UTF-8
    b.write(("{\"_id\": \"big\", \"text\": \"" + "y".repeat(3 << 20) + "\"}\n").getBytes(StandardCharsets.UTF_8));
    b.write("{\"_id\": \"b\", \"text\": \"after\"}".getBytes(StandardCharsets.UTF_8));   // no final newline
    Files.write(dir.resolve("bad.jsonl"), b.toByteArray());
    List<RawRecord> read = CorpusFiles.read(InputFormat.JSONL, 64L << 20, dir);
    assertEquals(4, read.size());
    assertNull(read.get(0).problem());
    assertEquals(QuarantineReason.INVALID_UTF8, read.get(1).problem());
    assertEquals(QuarantineReason.TOO_LARGE, read.get(2).problem(), "limit is 1 MiB in CorpusFiles");
    assertTrue(read.get(2).payload().startsWith("{\"_id\": \"big\""), "the prefix is kept for the quarantine");
    assertEquals("{\"_id\": \"b\", \"text\": \"after\"}", read.get(3).payload());
    assertEquals(read.get(2).offset() + read.get(2).bytes(), read.get(3).offset());
  }

  @Test
  void textTreesReadOneRecordPerFileAndRefuseBinaryAndOversizedFiles() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("tree/sub"));
    Files.writeString(tree.resolve("a.txt"), "plain text file\nsecond line");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(tree.resolve("b.txt.gz")))) {
      out.write("compressed text".getBytes(StandardCharsets.UTF_8));
    }
    Files.write(tree.resolve("c.txt"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13, 1, 2});
    Files.writeString(tree.resolve("d.txt"), "z".repeat((1 << 20) + 5));
    Files.writeString(tree.resolve("ignored.bin"), "auto skips unknown extensions");
    List<RawRecord> read = new ArrayList<>(CorpusFiles.read(InputFormat.AUTO, 4096, dir.resolve("tree")));
    read.sort(java.util.Comparator.comparing(RawRecord::sourceUri));
    assertEquals(4, read.size());
    assertEquals("plain text file\nsecond line", read.get(0).payload());
    assertEquals(InputFormat.TEXT, read.get(0).format());
    assertTrue(read.get(0).modified() > 0);
    assertEquals("compressed text", read.get(1).payload());
    assertEquals(QuarantineReason.BINARY_FILE, read.get(2).problem());
    assertEquals(QuarantineReason.TOO_LARGE, read.get(3).problem());
    assertEquals((1 << 20) + 5, read.get(3).bytes());
  }

  @Test
  void formatIsChosenByExtensionThroughGz() {
    assertEquals(InputFormat.JSONL, InputFormat.forFileName("x.ndjson.gz"));
    assertEquals(InputFormat.TEXT, InputFormat.forFileName("notes.TXT"));
    assertEquals(InputFormat.PARQUET, InputFormat.forFileName("part-0.parquet"));
    assertEquals(InputFormat.MARKDOWN, InputFormat.forFileName("README.md.gz"));
    assertNull(InputFormat.forFileName("image.png"));
    assertArrayEquals(new byte[0], new byte[0]);
  }
}
