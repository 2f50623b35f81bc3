package dev.kiln.index;

import dev.kiln.index.store.CachedRemoteFile;
import dev.kiln.index.store.FetchStats;
import dev.kiln.index.store.RangeReader;
import dev.kiln.model.ParentChunk;
import dev.kiln.snapshot.LocalFiles;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;

/**
 * What nightly changelog builds write and read of one docstore part on a remote root, with Lucene's
 * merges: a base part of {@code DOCS} documents ({@code PARENTS} parents of ~700 characters each),
 * then {@code NIGHTS} nights each upserting {@code PERCENT} % of the documents (their parents deleted
 * and written anew), each continuing the previous night's part read on demand
 * ({@link ParentStoreWriter#continuingOver}). Prints per night the bytes written (what a remote build
 * uploads), the bytes read of the base, the part's size and segment count. Arguments: {@code SCRATCH_DIR
 * DOCS PARENTS NIGHTS PERCENT}.
 */
public final class DocstoreNights {
  private DocstoreNights() {}

  public static void main(String[] args) throws Exception {
    Path scratch = Path.of(args[0]);
    int docs = Integer.parseInt(args[1]);
    int parents = Integer.parseInt(args[2]);
    int nights = Integer.parseInt(args[3]);
    double percent = Double.parseDouble(args[4]);
    LocalFiles.deleteTree(scratch);
    Random r = new Random(44);
    // Every file of every night, as a bucket holds them: name → the night directory that wrote it.
    Map<String, Path> bucket = new HashMap<>();
    Path base = scratch.resolve("night-0");
    try (ParentStoreWriter w = new ParentStoreWriter(base)) {
      for (int d = 0; d < docs; d++) {
        for (int p = 0; p < parents; p++) {
          w.add(parent(d, p, r));
        }
      }
    }
    long size = own(base, bucket);
    System.out.printf(Locale.ROOT, "night 0: %d bytes, %d segment(s)%n", size, segments(base));
    int changed = (int) Math.max(1, Math.round(docs * percent / 100));
    for (int night = 1; night <= nights; night++) {
      Path previous = scratch.resolve("night-" + (night - 1));
      Path next = scratch.resolve("night-" + night);
      FetchStats stats = new FetchStats();
      Map<String, CachedRemoteFile> files = new HashMap<>();
      Path cache = Files.createDirectories(scratch.resolve("cache-" + night));
      for (String name : SegmentInfos.readLatestCommit(FSDirectory.open(previous)).files(true)) {
        Path at = bucket.get(name);
        files.put(name, new CachedRemoteFile(name, Files.size(at.resolve(name)), new FileRanges(at.resolve(name)),
            cache.resolve(name), CachedRemoteFile.DEFAULT_BLOCK_BYTES, stats));
      }
      long start = System.nanoTime();
      ParentStoreWriter w = ParentStoreWriter.continuingOver(next, files);
      for (int i = 0; i < changed; i++) {
        int d = r.nextInt(docs);
        w.deleteDocument("d" + d);
        for (int p = 0; p < parents; p++) {
          w.add(parent(d, p, r));
        }
      }
      w.close();
      long ms = (System.nanoTime() - start) / 1_000_000;
      for (CachedRemoteFile f : files.values()) {
        f.close();
      }
      // The night's directory holds its own files; the shared ones stay where they were.
      for (String name : w.sharedBaseFiles()) {
        Files.createLink(next.resolve(name), bucket.get(name).resolve(name));
      }
      long written = own(next, bucket);
      long total = 0;
      for (String name : SegmentInfos.readLatestCommit(FSDirectory.open(next)).files(true)) {
        total += Files.size(next.resolve(name));
      }
      System.out.printf(Locale.ROOT, "night %d: wrote %d bytes (%.2f %% of the part's %d), read %d of the base,"
          + " %d segment(s), %d live parents, %d ms%n", night, written, 100.0 * written / total, total, stats.bytes(),
          segments(next), w.parents(), ms);
      LocalFiles.deleteTree(cache);
    }
  }

  private static ParentChunk parent(int d, int p, Random r) {
    StringBuilder b = new StringBuilder();
    while (b.length() < 700) {
      b.append(Integer.toString(r.nextInt(1 << 20), 36)).append(' ');
    }
    return new ParentChunk("d" + d + "#p" + p, "d" + d, p, "title " + d, "", b.toString(), 160);
  }

  /** Bytes of the files {@code dir} wrote (not links to earlier nights'), recorded as the bucket's. */
  private static long own(Path dir, Map<String, Path> bucket) throws IOException {
    long n = 0;
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.toList()) {
        String name = p.getFileName().toString();
        if (!name.equals("write.lock") && !bucket.containsKey(name)) {
          bucket.put(name, dir);
          n += Files.size(p);
        }
      }
    }
    return n;
  }

  private static int segments(Path dir) throws IOException {
    try (FSDirectory d = FSDirectory.open(dir)) {
      return SegmentInfos.readLatestCommit(d).size();
    }
  }

  /** Ranges of a local file, as a bucket serves an object's. */
  private static final class FileRanges implements RangeReader {
    private final RandomAccessFile file;

    FileRanges(Path p) throws IOException {
      file = new RandomAccessFile(p.toFile(), "r");
    }

    @Override
    public synchronized void read(long position, byte[] into, int offset, int length) throws IOException {
      file.seek(position);
      file.readFully(into, offset, length);
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
