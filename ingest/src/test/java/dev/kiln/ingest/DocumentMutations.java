package dev.kiln.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Shared by the document readers' fuzz tests ({@code PdfFuzzTest}, {@code DocxFuzzTest}, {@code
 * PptxFuzzTest}): mutations of a small valid fixture (bytes flipped, overwritten, inserted, cut off) and
 * the contract every mutated file is held to: it is read through {@link DocumentFileReader} as the job
 * reads it, into one record that parses to a document or carries a {@link QuarantineReason}, within a
 * time budget, and nothing else is thrown.
 */
final class DocumentMutations {
  private DocumentMutations() {}

  static final Duration BUDGET = Duration.ofSeconds(5);
  /** The extracted-text and spool limits: small, so that a mutation that inflates the text stops early. */
  static final long MAX_TEXT_CHARS = 1 << 16;
  static final long MAX_SPOOL_BYTES = 1 << 22;

  /** One edit of a file's bytes; positions are fractions of its length, so one edit fits every file. */
  record Edit(int kind, double at, int length, byte value) {
    byte[] apply(byte[] in) {
      if (in.length == 0) {
        return in;
      }
      int pos = (int) (at * in.length);
      return switch (kind) {
        case 0 -> { // flip bits
          byte[] out = in.clone();
          for (int i = pos; i < Math.min(in.length, pos + length); i++) {
            out[i] ^= value == 0 ? (byte) 0xFF : value;
          }
          yield out;
        }
        case 1 -> { // overwrite with one byte
          byte[] out = in.clone();
          Arrays.fill(out, pos, Math.min(in.length, pos + length), value);
          yield out;
        }
        case 2 -> { // insert
          byte[] ins = new byte[length];
          Arrays.fill(ins, value);
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          out.write(in, 0, pos);
          out.writeBytes(ins);
          out.write(in, pos, in.length - pos);
          yield out.toByteArray();
        }
        case 3 -> Arrays.copyOf(in, pos); // truncate
        default -> { // delete a range
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          out.write(in, 0, pos);
          int from = Math.min(in.length, pos + length);
          out.write(in, from, in.length - from);
          yield out.toByteArray();
        }
      };
    }
  }

  static Arbitrary<Edit> edits() {
    return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.doubles().between(0, 1),
        Arbitraries.integers().between(1, 64), Arbitraries.bytes()).as(Edit::new);
  }

  static Arbitrary<List<Edit>> editLists() {
    return edits().list().ofMinSize(1).ofMaxSize(6);
  }

  static byte[] apply(byte[] in, List<Edit> edits) {
    byte[] out = in;
    for (Edit e : edits) {
      out = e.apply(out);
    }
    return out;
  }

  /**
   * An Office file with its edits applied inside one ZIP entry (chosen by {@code entry}, modulo the
   * count), stored again: reaches the XML parsers behind the ZIP layer that raw byte edits mostly stop at.
   */
  static byte[] applyInsideZip(byte[] zip, int entry, List<Edit> edits) {
    try {
      List<ZipEntry> names = new ArrayList<>();
      List<byte[]> contents = new ArrayList<>();
      try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
        for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
          names.add(new ZipEntry(e.getName()));
          contents.add(in.readAllBytes());
        }
      }
      int target = Math.floorMod(entry, names.size());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (ZipOutputStream z = new ZipOutputStream(out)) {
        for (int i = 0; i < names.size(); i++) {
          z.putNextEntry(names.get(i));
          z.write(i == target ? apply(contents.get(i), edits) : contents.get(i));
          z.closeEntry();
        }
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads {@code bytes} as a {@code format} file in {@code dir}, asserting the contract. */
  static void assertReadsOrQuarantines(Path dir, InputFormat format, byte[] bytes) {
    assertTimeoutPreemptively(BUDGET, () -> {
      Path file = Files.createTempFile(dir, "fuzz", "." + format.name().toLowerCase(Locale.ROOT));
      try {
        Files.write(file, bytes);
        List<RawRecord> records;
        try (DocumentFileReader reader = new DocumentFileReader(new LocalSourceFile(file), format,
            new ReadOptions(MAX_TEXT_CHARS, MAX_SPOOL_BYTES, null, null))) {
          records = reader.readBatch();
        }
        assertEquals(1, records.size(), "a document file is one record");
        JsonLinesFuzzTest.assertParsesOrQuarantines(new RecordParser(List.of(LocalSourceFile.uri(dir))),
            records.get(0));
      } finally {
        Files.deleteIfExists(file);
      }
    });
  }

  static void deleteTree(Path root) throws IOException {
    if (root == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
