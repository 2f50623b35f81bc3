package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.config.IngestConfig;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
    read.sort(Comparator.comparing(RawRecord::sourceUri));
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
    assertNull(InputFormat.forFileName("archive.gz"), "a bare .gz names no format");
    assertEquals(InputFormat.HTML, InputFormat.forFileName("page.htm"));
    assertEquals(InputFormat.PDF, InputFormat.forFileName("Report.PDF"));
    assertEquals(InputFormat.DOCX, InputFormat.forFileName("spec.docx.gz"));
    assertEquals(InputFormat.PPTX, InputFormat.forFileName("deck.pptx"));
    assertNull(InputFormat.forFileName("legacy.doc"), "binary Word files are not read");
    assertEquals(InputFormat.PDF, InputFormat.parse("pdf"));
  }

  private static List<RawRecord> sorted(List<RawRecord> records) {
    List<RawRecord> out = new ArrayList<>(records);
    out.sort(Comparator.comparing(RawRecord::sourceUri).thenComparingLong(RawRecord::offset));
    return out;
  }

  @Test
  void symlinkLoopsAndDanglingLinksAreUnreadablePathsAndTheRestOfTheTreeIsRead() throws Exception {
    Path tree = Files.createDirectories(dir.resolve("tree/sub"));
    Files.writeString(tree.resolve("a.txt"), "kept text");
    Files.writeString(dir.resolve("tree/b.md"), "# B\nkept markdown");
    Files.createSymbolicLink(tree.resolve("up"), tree.getParent());          // directory loop to an ancestor
    Files.createSymbolicLink(tree.resolve("self.txt"), tree.resolve("self.txt")); // link to itself (ELOOP)
    Files.createSymbolicLink(tree.resolve("gone.txt"), tree.resolve("missing.txt")); // dangling
    List<RawRecord> read = sorted(CorpusFiles.read(InputFormat.AUTO, 4096, dir.resolve("tree")));
    List<String> good = read.stream().filter(r -> r.problem() == null).map(RawRecord::payload).toList();
    assertEquals(List.of("# B\nkept markdown", "kept text"), good, "each file once: the loop is not followed");
    List<RawRecord> bad = read.stream().filter(r -> r.problem() != null).toList();
    assertEquals(List.of("gone.txt", "self.txt", "up"),
        bad.stream().map(r -> r.sourceUri().substring(r.sourceUri().lastIndexOf('/') + 1)).toList(), bad.toString());
    bad.forEach(r -> assertEquals(QuarantineReason.UNREADABLE_PATH, r.problem()));
    assertTrue(bad.get(2).payload().contains("already listed"), bad.get(2).payload());
    assertTrue(bad.get(1).payload().contains("symbolic links"), bad.get(1).payload());
  }

  private static byte[] gzip(byte[] data) throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (OutputStream out = new GZIPOutputStream(b)) {
      out.write(data);
    }
    return b.toByteArray();
  }

  @Test
  void aTruncatedGzipKeepsTheLinesBeforeTheDamageAndQuarantinesTheTail() throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      text.append("{\"_id\": \"").append(i).append("\", \"text\": \"line ").append(i).append(' ')
          .append(Integer.toHexString(i * 7919)).append("\"}\n");
    }
    byte[] whole = gzip(text.toString().getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("cut.jsonl.gz"), Arrays.copyOf(whole, whole.length / 2));
    Files.write(dir.resolve("stub.jsonl.gz"), Arrays.copyOf(whole, 5));   // not even a header
    Files.write(dir.resolve("notes.md.gz"), Arrays.copyOf(gzip("# N\nsome notes".repeat(50)
        .getBytes(StandardCharsets.UTF_8)), 40));
    List<RawRecord> read = sorted(CorpusFiles.read(InputFormat.AUTO, 4096, dir));
    List<RawRecord> cut = read.stream().filter(r -> r.sourceUri().endsWith("cut.jsonl.gz")).toList();
    RawRecord tail = cut.get(cut.size() - 1);
    assertEquals(QuarantineReason.TRUNCATED_COMPRESSED, tail.problem());
    List<RawRecord> kept = cut.subList(0, cut.size() - 1);
    assertTrue(kept.size() > 100 && kept.size() < 3000, kept.size() + " lines");
    for (int i = 0; i < kept.size(); i++) {
      assertNull(kept.get(i).problem());
      assertTrue(kept.get(i).payload().startsWith("{\"_id\": \"" + i + "\""), kept.get(i).payload());
    }
    assertTrue(tail.offset() >= kept.get(kept.size() - 1).offset(), "the tail comes after the last whole line");
    assertTrue(tail.payload().contains("Unexpected end of ZLIB input stream"), tail.payload());
    RawRecord stub = read.stream().filter(r -> r.sourceUri().endsWith("stub.jsonl.gz")).findFirst().orElseThrow();
    assertEquals(QuarantineReason.TRUNCATED_COMPRESSED, stub.problem());
    RawRecord notes = read.stream().filter(r -> r.sourceUri().endsWith("notes.md.gz")).findFirst().orElseThrow();
    assertEquals(QuarantineReason.TRUNCATED_COMPRESSED, notes.problem());
    assertEquals(kept.size() + 3, read.size());
  }

  @Test
  void aLeadingByteOrderMarkIsNotPartOfTheFirstRecord() throws Exception {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    ByteArrayOutputStream jsonl = new ByteArrayOutputStream();
    jsonl.write(bom);
    jsonl.write("{\"_id\": \"first\", \"text\": \"a\"}\n{\"_id\": \"second\", \"text\": \"b\"}\n"
        .getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("bom.jsonl"), jsonl.toByteArray());
    Files.write(dir.resolve("bom.jsonl.gz"), gzip(jsonl.toByteArray()));
    for (String name : List.of("bom.md", "bom.txt", "bom.html")) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.write(bom);
      b.write(("<h1>" + name + "</h1>").getBytes(StandardCharsets.UTF_8));
      Files.write(dir.resolve(name), b.toByteArray());
    }
    List<RawRecord> read = sorted(CorpusFiles.read(InputFormat.AUTO, 4096, dir));
    assertEquals(List.of("<h1>bom.html</h1>", "{\"_id\": \"first\", \"text\": \"a\"}",
        "{\"_id\": \"second\", \"text\": \"b\"}", "{\"_id\": \"first\", \"text\": \"a\"}",
        "{\"_id\": \"second\", \"text\": \"b\"}", "<h1>bom.md</h1>", "<h1>bom.txt</h1>"), payloads(read));
    assertEquals(3, read.get(1).offset(), "offsets still count the mark's bytes");
    RecordParser parser = new RecordParser(List.of(org.apache.flink.core.fs.Path.fromLocalFile(dir.toFile()).toString()),
        new IngestConfig());
    assertEquals("first", parser.parse(read.get(1)).id());
  }
}
