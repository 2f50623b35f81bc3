package dev.kiln.vectors;

import dev.kiln.model.ContentKey;
import dev.kiln.snapshot.Checksums;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one embed subtask's {@link StoredVectorIndex} from a {@link ReuseSource}: only the parts
 * that can hold keys of the subtask's content-key partition are read ({@link ReusePart#neededBy}:
 * with as many subtasks as the build that wrote them, one part set in {@code n}), each is checked
 * against its SHA-256 before a row of it is trusted, and of the rest only the rows of the partition
 * are kept. A part whose bytes do not match, or that was made with another model, is passed over with
 * a warning: its chunks are embedded again, nothing wrong is reused. So the work grows with the
 * subtask's share of the stored vectors, not with all of them, and no client hashes them. A part on a
 * remote root is downloaded to a temporary file first, by the caller's {@link PartTransfer}.
 */
public final class ReusedVectors {
  private static final Logger LOG = LoggerFactory.getLogger(ReusedVectors.class);

  /** What the load did, for the job's counters. */
  public record Outcome(StoredVectorIndex index, int read, int skipped, int refused) {}

  private ReusedVectors() {}

  public static Outcome load(PartTransfer transfer, ReuseSource source, int subtask, int subtasks, String fingerprint,
      int dimension) throws IOException {
    int read = 0;
    int skipped = 0;
    int refused = 0;
    try (StoredVectorIndex.Builder index = new StoredVectorIndex.Builder(dimension)) {
      List<ReusePart> parts = new ArrayList<>(source.files());
      parts.addAll(source.resumed());
      for (ReusePart part : parts) {
        if (!part.neededBy(subtask, subtasks)) {
          skipped++;
        } else if (read(transfer, part, subtask, subtasks, fingerprint, dimension, index)) {
          read++;
        } else {
          refused++;
        }
      }
      return new Outcome(index.build(), read, skipped, refused);
    }
  }

  /** Adds the part's rows of this partition; false, adding nothing, when the part is not to be trusted. */
  private static boolean read(PartTransfer transfer, ReusePart part, int subtask, int subtasks, String fingerprint,
      int dimension, StoredVectorIndex.Builder index) throws IOException {
    boolean remote = transfer.isRemote(part.location());
    Path local = remote ? Files.createTempFile("kiln-reuse-" + subtask + "-", ".parquet") : Path.of(part.location());
    try {
      if (remote) {
        transfer.download(part.location(), local);
      }
      String actual;
      try {
        actual = Checksums.sha256(local);
      } catch (NoSuchFileException e) {
        LOG.warn("embed subtask {}: not reusing {}: it is gone", subtask, part.location());
        return false;
      }
      if (!actual.equals(part.sha256())) {
        LOG.warn("embed subtask {}: not reusing {}: its SHA-256 is {}, not the {} recorded for it; its chunks are"
            + " embedded again", subtask, part.location(), actual, part.sha256());
        return false;
      }
      try {
        VectorFiles.read(local, fingerprint, dimension, (key, v) -> {
          if (ContentKey.partition(key, subtasks) == subtask) {
            try {
              index.add(key, v);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        });
      } catch (IOException e) {
        // Another model's part (a resumed one): refused from its footer, before any row is read.
        LOG.warn("embed subtask {}: not reusing {}: {}", subtask, part.location(), e.getMessage());
        return false;
      }
      return true;
    } finally {
      if (remote) {
        Files.deleteIfExists(local);
      }
    }
  }
}
