package dev.kiln.search;

import dev.kiln.snapshot.ManifestWarmUp;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.DocValuesFormat;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.store.MMapDirectory;

/**
 * What every snapshot open does first, done ahead on a thread of its own: a process that will open a
 * snapshot (a command-line search, a server) starts it before parsing its command line. A fresh JVM's
 * open of a 1M-chunk snapshot spent about a tenth of a second binding the manifest's JSON, and another
 * in {@link MMapDirectory}'s static set-up (its memory-segment provider and native {@code madvise}
 * binding) and the codecs' service loading, all on the caller's thread and none of it depending on the
 * snapshot (issue 47.4). Whatever the warm-up has not finished when the open needs it, the open waits
 * for or does itself: class initialization runs once, whichever thread gets there first.
 */
public final class OpenWarmUp {
  private OpenWarmUp() {}

  /** Starts the warm-up on a daemon thread and returns it. */
  public static Thread start() {
    Thread t = new Thread(OpenWarmUp::run, "kiln-open-warm-up");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Runs the warm-up on the calling thread; returns whether every step ran (false: a step failed and the
   * open will do that part itself; never an error of any snapshot).
   */
  public static boolean run() {
    boolean ok = ManifestWarmUp.run();
    try {
      Class.forName(MMapDirectory.class.getName(), true, OpenWarmUp.class.getClassLoader());
      // The service loaders of the formats a segment names: read once, on first use.
      ok &= !Codec.availableCodecs().isEmpty() && !PostingsFormat.availablePostingsFormats().isEmpty()
          && !KnnVectorsFormat.availableKnnVectorsFormats().isEmpty()
          && !DocValuesFormat.availableDocValuesFormats().isEmpty();
    } catch (ClassNotFoundException | RuntimeException | LinkageError e) {
      return false;
    }
    return ok;
  }
}
