package dev.kiln.snapshot;

import java.io.BufferedInputStream;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code snapshots/<id>/corpus-files.tsv} (format version 1): every corpus file a corpus build saw,
 * with its size and modification time, so that the next incremental build can skip the files that
 * did not change. UTF-8, LF line ends, rows sorted by uri (each uri once):
 *
 * <pre>
 * # kiln corpus-files 1
 * # settings &lt;fingerprint of the reading and indexing settings&gt;
 * &lt;size&gt;\t&lt;modified (epoch ms)&gt;\t&lt;read|kept&gt;\t&lt;uri&gt;
 * </pre>
 *
 * <p>In a uri {@code %}, TAB, LF and CR are written {@code %25}, {@code %09}, {@code %0A},
 * {@code %0D}, so no file name can break a row; reading reverses exactly these four. A malformed
 * listing is refused whole, naming the line: a build must not skip files on a guess.
 */
public final class CorpusFiles {
  public static final int FORMAT_VERSION = 1;
  /** Rows of files this build read. */
  public static final String READ = "read";
  /** Rows of files unchanged since the base: not read, their documents kept from the base. */
  public static final String KEPT = "kept";
  static final String HEADER = "# kiln corpus-files ";
  static final String SETTINGS = "# settings ";
  /** Longest line read or written, in bytes: a forged file must not grow one line without bound. */
  static final int MAX_LINE_BYTES = 1 << 16;
  /** The characters a uri column escapes, and their escapes (3 characters each, in the same order). */
  private static final String RAW = "%\t\n\r";
  private static final String ESCAPED = "%25%09%0A%0D";

  /** One corpus file: its uri as the readers name it, length in bytes, modification time (epoch ms). */
  public record Entry(String uri, long size, long modified, boolean kept) {
    public Entry {
      if (uri == null || uri.isEmpty() || size < 0) {
        throw new IllegalArgumentException("corpus file entry needs a uri and a size >= 0: " + uri + ", " + size);
      }
    }

    /** Whether a file listed now with {@code size} and {@code modified} looks unchanged. */
    public boolean sameStamp(long size, long modified) {
      return this.size == size && this.modified == modified;
    }
  }

  private final String settings;
  private final SortedMap<String, Entry> byUri;

  private CorpusFiles(String settings, SortedMap<String, Entry> byUri) {
    this.settings = settings;
    this.byUri = Collections.unmodifiableSortedMap(byUri);
  }

  /**
   * Writes a listing to {@code out} (left open), rows sorted by uri.
   *
   * @param settings fingerprint of the settings that shape how records are read and indexed; no TAB, CR or LF
   * @return the manifest's {@code corpus_files} section for the bytes written
   * @throws IllegalArgumentException for such a settings string, a uri listed twice, or a value
   *     that UTF-8 cannot hold or longer than {@link #MAX_LINE_BYTES}
   */
  public static Manifest.CorpusFilesEntry write(OutputStream out, String settings, Collection<Entry> entries)
      throws IOException {
    if (settings.indexOf('\t') >= 0 || settings.indexOf('\r') >= 0 || settings.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("corpus files settings must be one line without tabs: '"
          + SafePaths.printable(settings) + "'");
    }
    check(SETTINGS + settings);
    SortedMap<String, Entry> sorted = new TreeMap<>();
    for (Entry e : entries) {
      if (sorted.put(e.uri(), e) != null) {
        throw new IllegalArgumentException("corpus file listed twice: " + SafePaths.printable(e.uri()));
      }
    }
    MessageDigest digest = Checksums.newDigest();
    long[] bytes = new long[1];
    OutputStream counted = new DigestOutputStream(out, digest) {
      @Override
      public void write(int b) throws IOException {
        super.write(b);
        bytes[0]++;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        super.write(b, off, len);
        bytes[0] += len;
      }
    };
    Writer w = new BufferedWriter(new OutputStreamWriter(counted, StandardCharsets.UTF_8));
    w.write(HEADER + FORMAT_VERSION + "\n" + SETTINGS + settings + "\n");
    for (Entry e : sorted.values()) {
      w.write(check(e.size() + "\t" + e.modified() + "\t" + (e.kept() ? KEPT : READ) + "\t" + encode(e.uri())));
      w.write('\n');
    }
    w.flush();
    CorpusFiles listed = new CorpusFiles(settings, sorted);
    return new Manifest.CorpusFilesEntry(SnapshotLayout.CORPUS_FILES, listed.size(), listed.keptCount(),
        listed.bytes(), bytes[0], HexFormat.of().formatHex(digest.digest()));
  }

  /** A line the reader will take back: UTF-8 can hold it (no unpaired surrogate) and it is not too long. */
  private static String check(String line) {
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(line)
        || line.getBytes(StandardCharsets.UTF_8).length > MAX_LINE_BYTES) {
      throw new IllegalArgumentException("corpus files line longer than " + MAX_LINE_BYTES
          + " bytes or with an unpaired surrogate: '" + SafePaths.printable(line) + "'");
    }
    return line;
  }

  /**
   * Reads a listing from {@code in} (left open).
   *
   * @throws IOException naming the line and what is wrong with it, for any deviation from the format
   */
  public static CorpusFiles read(InputStream in) throws IOException {
    InputStream r = new BufferedInputStream(in);
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    String header = line(r, utf8, 1);
    if (header == null || !header.startsWith(HEADER)) {
      throw malformed(1, "not a kiln corpus files listing (expected '" + HEADER + FORMAT_VERSION + "', found "
          + (header == null ? "an empty file" : "'" + SafePaths.printable(header) + "'") + ")");
    }
    if (!header.equals(HEADER + FORMAT_VERSION)) {
      throw malformed(1, "corpus files format version '" + SafePaths.printable(header.substring(HEADER.length()))
          + "': this reader knows version " + FORMAT_VERSION + " (upgrade Kiln)");
    }
    String settings = line(r, utf8, 2);
    if (settings == null || !settings.startsWith(SETTINGS)) {
      throw malformed(2, settings == null ? "no settings line" : settings.startsWith("#")
          ? "expected '" + SETTINGS + "…', found '" + SafePaths.printable(settings) + "'"
          : "a row before the settings line");
    }
    SortedMap<String, Entry> byUri = new TreeMap<>();
    String row;
    for (int n = 3; (row = line(r, utf8, n)) != null; n++) {
      String[] f = row.split("\t", -1);
      if (f.length != 4) {
        throw malformed(n, f.length + " columns, expected 4 (size, modified, state, uri)");
      }
      long size = number(f[0], "size", n);
      long modified = number(f[1], "modified", n);
      if (size < 0) {
        throw malformed(n, "negative size " + size);
      }
      if (!f[2].equals(READ) && !f[2].equals(KEPT)) {
        throw malformed(n, "state '" + SafePaths.printable(f[2]) + "', expected " + READ + " or " + KEPT);
      }
      String uri = decode(f[3]);
      if (uri.isEmpty()) {
        throw malformed(n, "empty uri");
      }
      if (byUri.put(uri, new Entry(uri, size, modified, f[2].equals(KEPT))) != null) {
        throw malformed(n, "uri listed twice: " + SafePaths.printable(uri));
      }
    }
    return new CorpusFiles(settings.substring(SETTINGS.length()), byUri);
  }

  /**
   * Line {@code n} without its LF; null at the end. Split on the LF byte (which UTF-8 never uses
   * inside a character) before decoding, so that bytes that are not UTF-8 are blamed on their line. A
   * CR or a line cut short of its LF (a truncated file) is refused.
   */
  private static String line(InputStream in, CharsetDecoder utf8, int n) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) {
        if (b.size() == 0) {
          return null;
        }
        throw malformed(n, "no line end (a truncated file?)");
      }
      if (c == '\r') {
        throw malformed(n, "carriage return (the format has LF line ends; a CR in a uri is written %0D)");
      }
      if (b.size() == MAX_LINE_BYTES) {
        throw malformed(n, "longer than " + MAX_LINE_BYTES + " bytes");
      }
      b.write(c);
    }
    try {
      return utf8.decode(ByteBuffer.wrap(b.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw malformed(n, "not UTF-8");
    }
  }

  private static long number(String s, String what, int n) throws IOException {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw malformed(n, what + " '" + SafePaths.printable(s) + "' is not a whole number");
    }
  }

  private static IOException malformed(int line, String what) {
    return new IOException("corpus files listing, line " + line + ": " + what);
  }

  /** {@code uri} with {@code %}, TAB, LF and CR escaped, so that it fits in a column. */
  static String encode(String uri) {
    StringBuilder b = new StringBuilder(uri.length());
    for (int i = 0; i < uri.length(); i++) {
      int k = RAW.indexOf(uri.charAt(i));
      if (k >= 0) {
        b.append(ESCAPED, 3 * k, 3 * k + 3);
      } else {
        b.append(uri.charAt(i));
      }
    }
    return b.toString();
  }

  /** Reverses {@link #encode}: only its four escapes; any other {@code %} stays as it is. */
  static String decode(String column) {
    StringBuilder b = new StringBuilder(column.length());
    for (int i = 0; i < column.length(); i++) {
      // An escape is 3 characters starting with '%': it can match ESCAPED only at a multiple of 3.
      int k = column.charAt(i) == '%' && i + 3 <= column.length() ? ESCAPED.indexOf(column.substring(i, i + 3)) : -1;
      if (k >= 0) {
        b.append(RAW.charAt(k / 3));
        i += 2;
      } else {
        b.append(column.charAt(i));
      }
    }
    return b.toString();
  }

  /** The fingerprint of the settings the listing's build read and indexed with. */
  public String settings() {
    return settings;
  }

  /** Every row, by uri (sorted, unmodifiable). */
  public SortedMap<String, Entry> byUri() {
    return byUri;
  }

  /** The row of {@code uri}, or null when the build did not see it. */
  public Entry get(String uri) {
    return byUri.get(uri);
  }

  public int size() {
    return byUri.size();
  }

  /** Rows in state {@link #KEPT}. */
  public long keptCount() {
    return byUri.values().stream().filter(Entry::kept).count();
  }

  /** The listed files' sizes, summed. */
  public long bytes() {
    return byUri.values().stream().mapToLong(Entry::size).sum();
  }

  /** The uris of the rows in state {@link #KEPT}, sorted. */
  public Set<String> keptUris() {
    return byUri.values().stream().filter(Entry::kept).map(Entry::uri)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
