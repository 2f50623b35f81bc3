package dev.kiln.index.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.store.BufferedIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;

/**
 * A shard being continued over a base that lives elsewhere: the base's committed files appear as if
 * they were here, read block by block on demand ({@link CachedRemoteFile}), and everything Lucene
 * writes goes to the local directory underneath. Lucene never rewrites a file, so the base's files
 * are only ever read; "deleting" one (an old {@code segments_N}, a segment merged away) drops it from
 * this view and leaves the base untouched. What remains in the view when the writer commits is what
 * the new shard shares with its base ({@link #baseFiles}).
 */
public final class BaseOverlayDirectory extends FilterDirectory {
  private final Map<String, CachedRemoteFile> base;

  /**
   * @param local where new files are written (and from where they are read)
   * @param base the base's files by name; the map is copied, the files are shared with the caller,
   *     who closes them
   */
  public BaseOverlayDirectory(Directory local, Map<String, CachedRemoteFile> base) {
    super(local);
    this.base = new ConcurrentHashMap<>(base);
  }

  /** The base's files still in this view: what the shard shares with its base. */
  public Set<String> baseFiles() {
    return new TreeSet<>(base.keySet());
  }

  @Override
  public String[] listAll() throws IOException {
    TreeSet<String> all = new TreeSet<>(List.of(in.listAll()));
    all.addAll(base.keySet());
    return all.toArray(new String[0]);
  }

  @Override
  public long fileLength(String name) throws IOException {
    CachedRemoteFile f = base.get(name);
    return f != null ? f.length() : in.fileLength(name);
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    CachedRemoteFile f = base.get(name);
    if (f == null) {
      return in.openInput(name, context);
    }
    return new CachedRemoteInput("CachedRemoteInput(" + name + ")", f, 0, f.length(),
        BufferedIndexInput.bufferSize(context));
  }

  @Override
  public void deleteFile(String name) throws IOException {
    if (base.remove(name) == null) {
      in.deleteFile(name);
    }
  }

  @Override
  public IndexOutput createOutput(String name, IOContext context) throws IOException {
    if (base.containsKey(name)) {
      throw new FileAlreadyExistsException(name + " is a file of the base shard, which is never rewritten");
    }
    return in.createOutput(name, context);
  }

  @Override
  public void sync(Collection<String> names) throws IOException {
    // The base's files are durable where they live; only new files need syncing.
    List<String> local = new ArrayList<>();
    for (String n : names) {
      if (!base.containsKey(n)) {
        local.add(n);
      }
    }
    in.sync(local);
  }

  @Override
  public void rename(String source, String dest) throws IOException {
    if (base.containsKey(source) || base.containsKey(dest)) {
      throw new IOException("cannot rename " + source + " to " + dest + ": a file of the base shard");
    }
    in.rename(source, dest);
  }
}
