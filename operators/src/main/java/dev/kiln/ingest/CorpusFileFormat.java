package dev.kiln.ingest;

import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.ArrayResultIterator;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads corpus files of any Flink file system into {@link RawRecord}s: one per JSON line, one per
 * Markdown or HTML file. A {@link BulkFormat} because the reader needs the file's path (Markdown document ids
 * are paths relative to the corpus root). Decoding problems become records with a {@code problem}, so
 * the parse stage can quarantine them instead of failing the read.
 */
public final class CorpusFileFormat implements BulkFormat<RawRecord, FileSourceSplit> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CorpusFileFormat.class);
  private static final int BATCH = 256;

  private final InputFormat format;

  public CorpusFileFormat(InputFormat format) {
    this.format = format;
  }

  @Override
  public Reader<RawRecord> createReader(Configuration config, FileSourceSplit split) throws IOException {
    Path path = split.path();
    InputFormat fileFormat = format == InputFormat.AUTO ? InputFormat.forFileName(path.getName()) : format;
    if (fileFormat == null) {
      LOG.info("skipping {}: not a corpus file extension (use --format to force one)", path);
      return new EmptyReader();
    }
    InputStream in = new BufferedInputStream(FileSystem.get(path.toUri()).open(path), 1 << 16);
    return switch (fileFormat) {
      case JSONL -> new LineReader(path.toString(), in);
      case MARKDOWN, HTML -> new WholeFileReader(path.toString(), fileFormat, in);
      default -> throw new IllegalStateException("no reader for " + fileFormat);
    };
  }

  @Override
  public Reader<RawRecord> restoreReader(Configuration config, FileSourceSplit split) throws IOException {
    // Kiln builds are batch jobs: a failed region re-reads its whole file, so there is no position to restore.
    return createReader(config, split);
  }

  @Override
  public boolean isSplittable() {
    return false;
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return TypeInformation.of(RawRecord.class);
  }

  static String decodeStrict(byte[] bytes, int len) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes, 0, len))
        .toString();
  }

  private static final class EmptyReader implements Reader<RawRecord> {
    @Override
    public RecordIterator<RawRecord> readBatch() {
      return null;
    }

    @Override
    public void close() {}
  }

  /** One record per line; offsets are byte offsets so a quarantined line can be found again. */
  private static final class LineReader implements Reader<RawRecord> {
    private final String uri;
    private final InputStream in;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(4096);
    private long offset;
    private boolean eof;

    LineReader(String uri, InputStream in) {
      this.uri = uri;
      this.in = in;
    }

    @Override
    public RecordIterator<RawRecord> readBatch() throws IOException {
      if (eof) {
        return null;
      }
      List<RawRecord> batch = new ArrayList<>(BATCH);
      while (batch.size() < BATCH && !eof) {
        long start = offset;
        line.reset();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
          line.write(b);
        }
        offset += line.size() + (b == '\n' ? 1 : 0);
        eof = b == -1;
        int len = line.size();
        byte[] bytes = line.toByteArray();
        if (len > 0 && bytes[len - 1] == '\r') {
          len--;
        }
        if (len == 0 || isBlank(bytes, len)) {
          continue;
        }
        try {
          batch.add(RawRecord.of(uri, start, InputFormat.JSONL, decodeStrict(bytes, len)));
        } catch (CharacterCodingException e) {
          batch.add(RawRecord.undecodable(uri, start, InputFormat.JSONL, "invalid UTF-8"));
        }
      }
      if (batch.isEmpty()) {
        return null;
      }
      ArrayResultIterator<RawRecord> it = new ArrayResultIterator<>();
      it.set(batch.toArray(new RawRecord[0]), batch.size(), 0L, 0L);
      return it;
    }

    private static boolean isBlank(byte[] bytes, int len) {
      for (int i = 0; i < len; i++) {
        if (bytes[i] != ' ' && bytes[i] != '\t') {
          return false;
        }
      }
      return true;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /** The whole file is one record (Markdown and other document-per-file formats). */
  private static final class WholeFileReader implements Reader<RawRecord> {
    private final String uri;
    private final InputFormat format;
    private final InputStream in;
    private boolean done;

    WholeFileReader(String uri, InputFormat format, InputStream in) {
      this.uri = uri;
      this.format = format;
      this.in = in;
    }

    @Override
    public RecordIterator<RawRecord> readBatch() throws IOException {
      if (done) {
        return null;
      }
      done = true;
      byte[] bytes = in.readAllBytes();
      RawRecord record;
      try {
        record = RawRecord.of(uri, 0, format, decodeStrict(bytes, bytes.length));
      } catch (CharacterCodingException e) {
        record = RawRecord.undecodable(uri, 0, format, "invalid UTF-8");
      }
      ArrayResultIterator<RawRecord> it = new ArrayResultIterator<>();
      it.set(new RawRecord[] {record}, 1, 0L, 0L);
      return it;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
