package dev.kiln.operators;

import dev.kiln.ingest.QuarantineReason;
import dev.kiln.model.RecordPosition;
import dev.kiln.vectors.KeyBits;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.core.fs.Path;

/**
 * A full build's writer side of duplicate ids: asks {@link DocumentWinners} what to do with each
 * piece, keeps the counters true (pieces dropped or deleted are taken off the cut and written counts,
 * so the manifest counts what the snapshot holds) and, for the chunk writers, quarantines each losing
 * record once into {@code duplicates-<subtask>.jsonl} in the build's quarantine directory and takes it
 * off the document count. The parents writer resolves the same records the same way (same positions,
 * same rule) but leaves the quarantining to the chunk writer.
 */
final class WriterDuplicates implements Closeable {
  private final DocumentWinners winners = new DocumentWinners();
  private final LongCounter pieces;
  private final LongCounter written;
  private final LongCounter duplicatePieces;
  private final LongCounter documents;
  private final LongCounter quarantined;
  private final QuarantineFile file;
  private final ListAccumulator<QuarantineSummary> summaries;

  private WriterDuplicates(LongCounter pieces, LongCounter written, LongCounter duplicatePieces,
      LongCounter documents, LongCounter quarantined, QuarantineFile file,
      ListAccumulator<QuarantineSummary> summaries) {
    this.pieces = pieces;
    this.written = written;
    this.duplicatePieces = duplicatePieces;
    this.documents = documents;
    this.quarantined = quarantined;
    this.file = file;
    this.summaries = summaries;
  }

  /** A chunk writer's: losers are quarantined under {@code quarantineDir} (none when it is {@code null}). */
  static WriterDuplicates forChunks(RuntimeContext ctx, String quarantineDir) {
    int subtask = ctx.getTaskInfo().getIndexOfThisSubtask();
    QuarantineFile file = quarantineDir == null ? null
        : new QuarantineFile(new Path(quarantineDir, String.format(Locale.ROOT, "duplicates-%05d.jsonl", subtask)));
    ListAccumulator<QuarantineSummary> summaries = new ListAccumulator<>();
    ctx.addAccumulator(QuarantineWriterFunction.SUMMARIES, summaries);
    return new WriterDuplicates(ctx.getLongCounter(JobCounters.CHUNKS), ctx.getLongCounter(JobCounters.CHUNKS_WRITTEN),
        ctx.getLongCounter(JobCounters.CHUNKS_DUPLICATE_ID), ctx.getLongCounter(JobCounters.DOCUMENTS),
        ctx.getLongCounter(JobCounters.QUARANTINED), file, summaries);
  }

  /** The parents writer's: counts only. */
  static WriterDuplicates forParents(RuntimeContext ctx) {
    return new WriterDuplicates(ctx.getLongCounter(JobCounters.PARENTS),
        ctx.getLongCounter(JobCounters.PARENTS_WRITTEN), null, null, null, null, null);
  }

  /**
   * What to do with one piece of {@code docId} cut from the record at {@code at}: the counters are
   * already updated as if the writer did it (on {@code REPLACE}: delete the id's pieces, then write).
   *
   * @param text the piece's text, the start of a losing record's quarantine entry
   */
  DocumentWinners.Action offer(String docId, RecordPosition at, String text) throws IOException {
    return decide(docId, at, text).action();
  }

  /** {@link #offer}, with the whole decision: a continuing writer needs to know what it replaces. */
  DocumentWinners.Decision decide(String docId, RecordPosition at, String text) throws IOException {
    DocumentWinners.Decision d = winners.offer(docId, at);
    switch (d.action()) {
      case WRITE -> written.add(1);
      case REPLACE -> {
        written.add(1 - d.discarded());
        dropped(d.discarded());
      }
      case DROP -> dropped(1);
    }
    quarantineLoser(docId, at, d, text);
    return d;
  }

  /**
   * An incremental build's record of {@code docId} unchanged since the base snapshot, at {@code at}:
   * it takes part without pieces ({@link DocumentWinners#offerUnchanged}); pieces of a former winner
   * it replaces are taken off the counts, as the writer deletes them.
   */
  DocumentWinners.Decision unchanged(String docId, RecordPosition at) throws IOException {
    return unchanged(docId, KeyBits.ofId(docId), at);
  }

  /** As above, with the id's {@link KeyBits#ofId} already taken (the writer hashes each kept id once). */
  DocumentWinners.Decision unchanged(String docId, long[] key, RecordPosition at) throws IOException {
    DocumentWinners.Decision d = winners.offerUnchanged(docId, key, at);
    if (d.action() == DocumentWinners.Action.REPLACE) {
      written.add(-d.discarded());
      dropped(d.discarded());
    }
    quarantineLoser(docId, at, d, null);
    return d;
  }

  /** Quarantines the record {@code d} says has just lost; {@code text} is null for an unchanged record. */
  private void quarantineLoser(String docId, RecordPosition at, DocumentWinners.Decision d, String text)
      throws IOException {
    if (d.loser() != null && documents != null) {
      documents.add(-1);
      quarantined.add(1);
      if (file != null) {
        boolean arriving = d.loser().equals(at);
        String detail = "duplicate id '" + docId + "': kept the record at " + d.winner();
        if (arriving && text == null) {
          detail += " (this copy is unchanged since the base snapshot: its text is not repeated here)";
        }
        file.write(QuarantinedRecord.of(d.loser().sourceUri(), d.loser().offset(), QuarantineReason.DUPLICATE_ID,
            detail, arriving && text != null ? text : ""));
      }
    }
  }

  /** {@code n} pieces cut but never offered: an incremental build's fresh parents of a document its base kept. */
  void skipped(long n) {
    skipped(n, false);
  }

  /** As {@link #skipped(long)}; {@code written}: they were written (offered), and the writer has deleted them. */
  void skipped(long n, boolean written) {
    if (written) {
      this.written.add(-n);
    }
    dropped(n);
  }

  private void dropped(long n) {
    pieces.add(-n);
    if (duplicatePieces != null) {
      duplicatePieces.add(n);
    }
  }

  /** The report of what was quarantined, for the committer, or {@code null} when nothing was. */
  StageReport report(String stage, int subtask) {
    QuarantineSummary summary = file == null ? null : file.summary();
    if (summary == null) {
      return null;
    }
    summaries.add(summary);
    return new StageReport(stage, subtask, Map.of(), null, summary, List.of());
  }

  @Override
  public void close() throws IOException {
    if (file != null) {
      file.close();
    }
  }
}
