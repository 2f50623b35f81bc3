package dev.kiln.jobs;

import dev.kiln.config.BuildConfig;
import dev.kiln.config.ConfigException;
import dev.kiln.embed.ModelSpec;
import dev.kiln.ingest.CorpusFileEnumerator;
import dev.kiln.ingest.CorpusFileFormat;
import dev.kiln.ingest.ReadOptions;
import dev.kiln.ingest.RecordParser;
import dev.kiln.ingest.SuppliedVectors;
import dev.kiln.model.RawRecord;
import dev.kiln.model.ShardChange;
import dev.kiln.operators.BaseDocuments;
import dev.kiln.operators.JobCounters;
import dev.kiln.operators.ParseFunction;
import dev.kiln.operators.QuarantinedRecord;
import dev.kiln.operators.ReportingStages;
import dev.kiln.operators.SourcedDocument;
import dev.kiln.operators.StageReport;
import dev.kiln.operators.StageReports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The stages a corpus build starts with: the file source over the corpus roots and the parser, which in
 * an incremental build sends the documents unchanged since the base straight to the shard writers as
 * ids and record positions. No stage sits between the parser and the chunker, in a full build or an
 * incremental one: the writers resolve duplicate ids ({@code WriterDuplicates}), so nothing here sorts
 * or holds the corpus (a keyed stage did in incremental builds: sorting a million unchanged ids took
 * 8.5 of a 1 % rebuild's 51 seconds, while the writers could not start).
 */
final class CorpusStages {
  private CorpusStages() {}

  /**
   * The documents, the records an incremental build found unchanged ({@code kept}, null in a full
   * build), and what the parse stage set aside and reports.
   */
  record Streams(DataStream<SourcedDocument> documents, DataStream<ShardChange> kept,
      DataStream<QuarantinedRecord> quarantine, DataStream<StageReport> reports) {}

  /**
   * @param base an incremental build's base documents, or {@code null} for a full build
   * @param unreadListing an incremental build's corpus listing whose kept files are not read, or {@code null}
   */
  static Streams read(StreamExecutionEnvironment env, BuildConfig config, ModelSpec model, BaseDocuments base,
      String unreadListing) {
    List<Path> roots = paths(config);
    CorpusFileFormat format = format(config);
    long splitBytes = config.ingest.splitBytes;
    FileSource<RawRecord> source = FileSource
        .forBulkFileFormat(format, roots.toArray(new Path[0]))
        .setFileEnumerator(() -> unreadListing == null ? new CorpusFileEnumerator(format, splitBytes)
            : unreadFiles(format, splitBytes, unreadListing))
        .build();
    DataStream<RawRecord> raw = env.fromSource(source, WatermarkStrategy.noWatermarks(), "read-corpus");

    List<String> rootNames = roots.stream().map(Path::toString).toList();
    SingleOutputStreamOperator<SourcedDocument> parsed = ReportingStages.process(raw, "parse",
        new ParseFunction(new RecordParser(rootNames, config.ingest,
            new SuppliedVectors(model.dimension(), model.normalize(), config.ingest.vectorUnitTolerance)), base),
        SourcedDocument.class, JobCounters.PARSE_STAGE);
    return new Streams(parsed, base == null ? null : parsed.getSideOutput(ParseFunction.UNCHANGED),
        parsed.getSideOutput(ParseFunction.QUARANTINE), parsed.getSideOutput(StageReports.TAG));
  }

  /** How corpus files are cut into splits and read. */
  static CorpusFileFormat format(BuildConfig config) {
    return new CorpusFileFormat(config.inputFormat(), ReadOptions.of(config.ingest));
  }

  private static CorpusFileEnumerator unreadFiles(CorpusFileFormat format, long splitBytes, String listing) {
    try {
      return new CorpusFileEnumerator(format, splitBytes, listing);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the corpus listing " + listing, e);
    }
  }

  /** Corpus roots as Flink paths, checked to exist so that a typo fails before the job starts. */
  static List<Path> paths(BuildConfig config) {
    List<Path> paths = new ArrayList<>();
    for (String c : config.corpus) {
      Path p = new Path(c);
      try {
        FileSystem fs = p.getFileSystem();
        Path q = p.makeQualified(fs);
        if (!fs.exists(q)) {
          throw new ConfigException("corpus path not found: " + c);
        }
        paths.add(q);
      } catch (IOException e) {
        throw new ConfigException("cannot access corpus path " + c + ": " + e.getMessage(), e);
      }
    }
    return paths;
  }
}
