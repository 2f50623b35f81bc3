package dev.kiln.bench;

import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.ingest.CorpusFileFormat;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.awt.image.BufferedImage;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.apache.flink.core.fs.Path;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.graphics.image.LosslessFactory;

/**
 * How a large PDF is read: a PDF larger than the reader's heap (every page a page of text and an
 * incompressible image) is extracted through the build's own reader, reporting time, pages per second,
 * the text's size and the most heap in use (sampled).
 *
 * <p>Usage: {@code DocumentExtraction write FILE PAGES IMAGE_KIB} (writes the PDF; streams are cached in
 * temporary files, so any heap does), then {@code java -Xmx128m … DocumentExtraction read FILE
 * MAX_RECORD_CHARS}.
 *
 * <p>Measured on the shared 2-core development machine: 3000 pages with 150 KiB images, 463 MB, read with
 * {@code -Xmx128m} and the default 16 MiB record limit in 7.0 s (432 pages/s, 7.1 MB of extracted HTML,
 * heap in use at most 132 MB); with a 100,000-character limit it is {@code too_large} after 1.5 s. With
 * {@code -Xmx64m} the limit still works, but a full read fails: the extracted text, held a few times while
 * it becomes the record, is what needs the heap, not the file.
 */
public final class DocumentExtraction {
  private DocumentExtraction() {}

  public static void main(String[] args) throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(args[1]);
    if (args[0].equals("write")) {
      write(file, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else {
      read(file, Long.parseLong(args[2]));
    }
  }

  static void write(java.nio.file.Path file, int pages, int imageKib) throws Exception {
    Random random = new Random(42);
    int side = (int) Math.sqrt(imageKib * 1024 / 3.0);
    try (PDDocument doc = new PDDocument(IOUtils.createTempFileOnlyStreamCache())) {
      PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
      for (int p = 1; p <= pages; p++) {
        PDPage page = new PDPage();
        doc.addPage(page);
        BufferedImage noise = new BufferedImage(side, side, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < side; y++) {
          for (int x = 0; x < side; x++) {
            noise.setRGB(x, y, random.nextInt());
          }
        }
        try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
          s.drawImage(LosslessFactory.createFromImage(doc, noise), 50, 50, 200, 200);
          s.beginText();
          s.setFont(font, 10);
          s.setLeading(12);
          s.newLineAtOffset(50, 740);
          for (int line = 0; line < 30; line++) {
            s.showText("Page " + p + " line " + line + ": glaze chemistry, kiln schedules and clay bodies "
                + Integer.toHexString(random.nextInt()));
            s.newLine();
          }
          s.endText();
        }
      }
      doc.save(file.toFile());
    }
    System.out.printf(Locale.ROOT, "wrote %s: %d pages, %.1f MB%n", file, pages, Files.size(file) / 1e6);
  }

  static void read(java.nio.file.Path file, long maxRecordChars) throws Exception {
    CorpusFileFormat format = new CorpusFileFormat(InputFormat.AUTO, maxRecordChars, 1L << 30);
    FileSourceSplit split = new CorpusFileEnumerator(format, 1 << 20)
        .enumerateSplits(new Path[] {Path.fromLocalFile(file.toFile())}, 1).iterator().next();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    AtomicLong peak = new AtomicLong();
    Thread sampler = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    sampler.setDaemon(true);
    sampler.start();
    long start = System.nanoTime();
    RawRecord record;
    try (BulkFormat.Reader<RawRecord> reader = format.createReader(new Configuration(), split)) {
      BulkFormat.RecordIterator<RawRecord> batch = reader.readBatch();
      RecordAndPosition<RawRecord> r = batch.next();
      record = r.getRecord();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    sampler.interrupt();
    sampler.join();
    String pages = record.problem() == null && record.payload().contains("\"pages\":\"")
        ? record.payload().replaceAll("(?s).*\"pages\":\"(\\d+)\".*", "$1") : "?";
    System.out.printf(Locale.ROOT,
        "read %s (%.1f MB) with -Xmx%d MB: %s, %s pages, payload %.1f MB, %.1f s (%.0f pages/s), heap used at most %.0f MB (sampled every 5 ms)%n",
        file.getFileName(), Files.size(file) / 1e6, Runtime.getRuntime().maxMemory() >> 20,
        record.problem() == null ? "read" : record.problem(), pages, record.payload().length() / 1e6, seconds,
        pages.equals("?") ? 0 : Integer.parseInt(pages) / seconds, peak.get() / 1e6);
  }
}
