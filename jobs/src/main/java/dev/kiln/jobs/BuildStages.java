package dev.kiln.jobs;

import dev.kiln.cli.progress.StageProgress;
import dev.kiln.operators.JobCounters;
import java.util.List;
import java.util.Map;

/**
 * The build's stages as progress, from the job's accumulators ({@link JobCounters}): read (records, total
 * unknown until read), embed and write (chunks, of the chunks the chunker has made). In batch mode the
 * chunker finishes before the embed stage starts, so from then on the embed and write totals are final
 * and their ETAs real.
 */
final class BuildStages {
  private BuildStages() {}

  static List<StageProgress> of(Map<String, Object> accumulators) {
    long chunks = get(accumulators, JobCounters.CHUNKS);
    long embedded = get(accumulators, JobCounters.CHUNKS_EMBEDDED);
    long reused = get(accumulators, JobCounters.CHUNKS_REUSED);
    long passed = embedded + reused + get(accumulators, JobCounters.CHUNKS_DEDUPLICATED)
        + get(accumulators, JobCounters.CHUNKS_SUPPLIED);
    return List.of(
        new StageProgress("read", "records", get(accumulators, JobCounters.RECORDS_READ), StageProgress.UNKNOWN,
            get(accumulators, JobCounters.DOCUMENTS) + " documents, " + chunks + " chunks"),
        new StageProgress("embed", "chunks", passed, chunks, embedded + " embedded, " + reused + " reused"),
        new StageProgress("write", "chunks", get(accumulators, JobCounters.CHUNKS_WRITTEN), chunks, ""));
  }

  private static long get(Map<String, Object> accumulators, String name) {
    return accumulators.get(name) instanceof Number n ? n.longValue() : 0L;
  }
}
