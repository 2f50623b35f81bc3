package dev.kiln.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.config.IngestConfig;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.ingest.CorpusFileFormat;
import dev.kiln.ingest.MalformedRecordException;
import dev.kiln.ingest.RecordParser;
import dev.kiln.model.InputFormat;
import dev.kiln.model.RawRecord;
import dev.kiln.operators.ParseFunction;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Read + parse throughput on one large JSON-lines file, against a raw Jackson loop over the same file
 * in the same JVM: (1) BufferedReader.readLine + ObjectMapper.readTree, pulling _id/title/text;
 * (2) Kiln's reader + RecordParser in one thread; (3) the job's read + parse stage on a mini-cluster
 * at parallelism 1 and 2 (the file is split). Each is run twice; the second (warm) run is reported.
 *
 * <p>Usage: {@code IngestThroughput FILE.jsonl [splitMiB]}
 */
public final class IngestThroughput {
  public static void main(String[] args) throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(args[0]);
    long splitBytes = (args.length > 1 ? Long.parseLong(args[1]) : 64) << 20;
    System.out.printf(Locale.ROOT, "file %s: %,d bytes%n", file, Files.size(file));
    for (int round = 1; round <= 2; round++) {
      System.out.println("round " + round + (round == 1 ? " (warm-up)" : ""));
      report("raw Jackson readLine+readTree", file, () -> jackson(file));
      report("Kiln reader+parser, 1 thread", file, () -> kiln(file));
      report("Flink read+parse stage, p=1", file, () -> flink(file, 1, splitBytes));
      report("Flink read+parse stage, p=2", file, () -> flink(file, 2, splitBytes));
    }
  }

  interface Run {
    long records() throws Exception;
  }

  static void report(String name, java.nio.file.Path file, Run run) throws Exception {
    long t0 = System.nanoTime();
    long n = run.records();
    double s = (System.nanoTime() - t0) / 1e9;
    System.out.printf(Locale.ROOT, "  %-34s %,9d records in %6.2f s = %,10.0f records/s, %6.1f MB/s%n",
        name, n, s, n / s, Files.size(file) / s / 1e6);
  }

  static long jackson(java.nio.file.Path file) throws Exception {
    ObjectMapper json = new ObjectMapper();
    long n = 0;
    long chars = 0;
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        JsonNode node = json.readTree(line);
        chars += node.get("_id").asText().length() + node.get("title").asText().length()
            + node.get("text").asText().length();
        n++;
      }
    }
    return chars > 0 ? n : -1;
  }

  static long kiln(java.nio.file.Path file) throws Exception {
    CorpusFileFormat format = new CorpusFileFormat(InputFormat.AUTO, 16 << 20);
    Path p = Path.fromLocalFile(file.toFile());
    RecordParser parser = new RecordParser(List.of(p.getParent().toString()), new IngestConfig());
    long n = 0;
    long size = Files.size(file);
    FileSourceSplit split = new FileSourceSplit("0", p, 0, size, Files.getLastModifiedTime(file).toMillis(), size);
    try (BulkFormat.Reader<RawRecord> reader = format.createReader(new Configuration(), split)) {
      BulkFormat.RecordIterator<RawRecord> batch;
      while ((batch = reader.readBatch()) != null) {
        for (var r = batch.next(); r != null; r = batch.next()) {
          try {
            parser.parse(r.getRecord());
            n++;
          } catch (MalformedRecordException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    return n;
  }

  static long flink(java.nio.file.Path file, int parallelism, long splitBytes) throws Exception {
    Configuration conf = new Configuration();
    conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
    conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
    conf.set(TaskManagerOptions.HOST, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    Path p = Path.fromLocalFile(file.toFile());
    CorpusFileFormat format = new CorpusFileFormat(InputFormat.AUTO, 16 << 20);
    FileSource<RawRecord> source = FileSource.forBulkFileFormat(format, p)
        .setFileEnumerator(() -> new CorpusFileEnumerator(format, splitBytes)).build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "read")
        .process(new ParseFunction(new RecordParser(List.of(p.getParent().toString()), new IngestConfig())))
        .sinkTo(new DiscardingSink<>());
    var result = env.execute("ingest throughput p=" + parallelism);
    return ((Number) result.getAccumulatorResult("documents")).longValue();
  }
}
