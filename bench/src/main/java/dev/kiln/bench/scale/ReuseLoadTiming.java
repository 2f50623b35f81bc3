package dev.kiln.bench.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.model.ContentKey;
import dev.kiln.snapshot.Checksums;
import dev.kiln.vectors.PartTransfer;
import dev.kiln.vectors.ReusePart;
import dev.kiln.vectors.ReuseSource;
import dev.kiln.vectors.ReusedVectors;
import dev.kiln.vectors.RollingParts;
import dev.kiln.vectors.StoredVectorIndex;
import dev.kiln.vectors.VectorFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * What embedding reuse costs a build over a snapshot of {@code N} stored vectors, the way the build
 * did it before and does it now, on the same part files in one run:
 * <ul>
 *   <li><b>before</b>: the client hashes every part (SHA-256, serially), then every embed subtask reads
 *       every part and keeps the rows of its key partition;
 *   <li><b>now</b> ({@link ReusedVectors}): the client checks sizes only; each subtask reads only the
 *       parts of its own partition, hashing each first.
 * </ul>
 * The parts are written as {@code P} embed subtasks write them ({@link RollingParts}, default part
 * size), keys routed by {@link ContentKey#partition}. Subtasks are timed one after another; in a job
 * they run side by side, so a build waits for the client plus the slowest subtask.
 * Arguments: {@code DIR N P [DIM]}. Prints one JSON object; DIR is reused when it holds the parts.
 */
public final class ReuseLoadTiming {
  private static final String MODEL = "sha256:reuse-load-timing";

  private ReuseLoadTiming() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int n = Integer.parseInt(args[1]);
    int subtasks = Integer.parseInt(args[2]);
    int dim = args.length > 3 ? Integer.parseInt(args[3]) : 384;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vectors", n);
    out.put("subtasks", subtasks);
    out.put("dimension", dim);
    long t0 = System.nanoTime();
    if (!Files.isDirectory(dir) || parts(dir).isEmpty()) {
      write(dir, n, subtasks, dim);
      out.put("write_s", seconds(t0));
    }
    List<Path> files = parts(dir);
    long bytes = 0;
    for (Path p : files) {
      bytes += Files.size(p);
    }
    out.put("parts", files.size());
    out.put("part_bytes", bytes);

    // Before: the client hashes everything, then each subtask reads everything.
    long t = System.nanoTime();
    List<ReusePart> offered = new ArrayList<>();
    for (Path p : files) {
      offered.add(new ReusePart(p.toString(), Checksums.sha256(p)));
    }
    double clientHash = seconds(t);
    List<Double> before = new ArrayList<>();
    for (int s = 0; s < subtasks; s++) {
      t = System.nanoTime();
      try (StoredVectorIndex.Builder b = new StoredVectorIndex.Builder(dim)) {
        final int subtask = s;
        for (Path p : files) {
          VectorFiles.read(p, MODEL, dim, (key, v) -> {
            if (ContentKey.partition(key, subtasks) == subtask) {
              try {
                b.add(key, v);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
          });
        }
        b.build().close();
      }
      before.add(seconds(t));
    }
    // Now: sizes in the client, each subtask its own parts, hashed as read.
    t = System.nanoTime();
    for (Path p : files) {
      Files.size(p);
    }
    double clientSizes = seconds(t);
    List<Double> now = new ArrayList<>();
    long loaded = 0;
    for (int s = 0; s < subtasks; s++) {
      t = System.nanoTime();
      ReusedVectors.Outcome o =
          ReusedVectors.load(PartTransfer.LOCAL, new ReuseSource("timing", offered), s, subtasks, MODEL, dim);
      now.add(seconds(t));
      loaded += o.index().size();
      o.index().close();
      if (o.refused() > 0) {
        throw new IllegalStateException("a part was refused");
      }
    }
    if (loaded != n) {
      throw new IllegalStateException("loaded " + loaded + " of " + n + " vectors");
    }
    out.put("before_client_hash_s", clientHash);
    out.put("before_subtask_s", before);
    out.put("before_build_waits_s", clientHash + before.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    out.put("now_client_sizes_s", clientSizes);
    out.put("now_subtask_s", now);
    out.put("now_build_waits_s", clientSizes + now.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    out.put("bytes_read_per_subtask_before", bytes);
    out.put("bytes_read_per_subtask_now", bytes / subtasks);
    System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out));
  }

  private static void write(Path dir, int n, int subtasks, int dim) throws Exception {
    Files.createDirectories(dir);
    List<RollingParts> writers = new ArrayList<>();
    for (int s = 0; s < subtasks; s++) {
      writers.add(new RollingParts(PartTransfer.LOCAL, dir.toString(), s, subtasks, 0, MODEL, dim, 10_000, 3_600));
    }
    SplittableRandom random = new SplittableRandom(17);
    float[] v = new float[dim];
    for (int i = 0; i < n; i++) {
      String key = String.format(Locale.ROOT, "%016x%016x%016x%016x", random.nextLong(), random.nextLong(),
          random.nextLong(), random.nextLong());
      double norm = 0;
      for (int d = 0; d < dim; d++) {
        v[d] = (float) random.nextGaussian();
        norm += v[d] * v[d];
      }
      float inv = (float) (1 / Math.sqrt(norm));
      for (int d = 0; d < dim; d++) {
        v[d] *= inv;
      }
      writers.get(ContentKey.partition(key, subtasks)).write(key, v);
    }
    for (RollingParts w : writers) {
      w.roll();
    }
  }

  private static List<Path> parts(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().toList();
    }
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
