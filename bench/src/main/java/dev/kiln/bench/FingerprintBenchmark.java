package dev.kiln.bench;

import dev.kiln.model.ContentType;
import dev.kiln.model.Document;
import dev.kiln.model.DocumentFingerprint;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The document fingerprint an incremental build computes for every record (a million per rebuild of a
 * million documents) vs the same SHA-256 written the plain way: the definition's bytes through a
 * {@link DataOutputStream}, a sorted map of the metadata and a digest looked up per document. Both
 * give the same bytes. Documents like the scale benchmark's: 1.5 KB of text with a few non-ASCII
 * characters, three metadata keys (two of them provenance, left out), a 384-d vector. One op = 10,000
 * documents.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FingerprintBenchmark {
  List<Document> documents;

  @Setup(Level.Trial)
  public void setUp() {
    Random random = new Random(1);
    String[] words = "the of protein cell α-synuclein – β cells expression 5% patients mice study results increased"
        .split(" ");
    documents = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      StringBuilder text = new StringBuilder();
      while (text.length() < 1_500) {
        text.append(words[random.nextInt(words.length)]).append(' ');
      }
      float[] v = new float[384];
      for (int d = 0; d < v.length; d++) {
        v[d] = (float) random.nextGaussian();
      }
      documents.add(new Document("doc-" + i, "Title " + i, text.toString(), Map.of("tenant", "t" + i % 5,
          DocumentFingerprint.SOURCE_URI, "file:/corpus/part-0.parquet", DocumentFingerprint.MODIFIED, "1"),
          "file:/corpus/part-0.parquet", ContentType.TEXT, v));
    }
  }

  @Benchmark
  public void kilnFingerprint(Blackhole bh) {
    for (Document d : documents) {
      bh.consume(DocumentFingerprint.of(d, "settings"));
    }
  }

  @Benchmark
  public void rawPlainSha256(Blackhole bh) throws Exception {
    for (Document d : documents) {
      bh.consume(plain(d, "settings"));
    }
  }

  /** The fingerprint's definition, written the obvious way. */
  static byte[] plain(Document doc, String settings) throws IOException, NoSuchAlgorithmException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    string(out, settings);
    string(out, doc.id());
    string(out, doc.title());
    string(out, doc.text());
    TreeMap<String, String> metadata = new TreeMap<>(doc.metadata());
    metadata.remove(DocumentFingerprint.SOURCE_URI);
    metadata.remove(DocumentFingerprint.MODIFIED);
    out.writeInt(metadata.size());
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      string(out, e.getKey());
      string(out, e.getValue());
    }
    string(out, doc.contentType().name());
    if (doc.vector() == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(doc.vector().length);
      for (float f : doc.vector()) {
        out.writeInt(Float.floatToIntBits(f));
      }
    }
    byte[] full = MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray());
    byte[] fingerprint = new byte[DocumentFingerprint.BYTES];
    System.arraycopy(full, 0, fingerprint, 0, fingerprint.length);
    return fingerprint;
  }

  private static void string(DataOutputStream out, String s) throws IOException {
    byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }
}
