package dev.kiln.search.http;

import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How a hit's {@code source_uri} metadata is shown over HTTP. The index keeps the URI the build's
 * readers gave the corpus file ({@code file:/home/builder/corpora/acme/guides/install.md}), which names
 * the build machine's directories; the service shows it relative to its corpus root instead
 * ({@code kiln serve --source-root URI[=LABEL]}, repeatable), behind the root's label when it has one:
 * {@code guides/install.md}, or {@code acme/guides/install.md} for {@code =acme}. A local URI
 * ({@code file:}) under no configured root is shown as its file name alone; any other URI ({@code s3://},
 * {@code hdfs://}) under no configured root as indexed. Only the HTTP answers change: the library, and
 * so {@code kiln search}, keeps the URI as indexed.
 */
public final class SourceUris {
  /** The metadata key: MetadataExtractor's {@code source_uri}. */
  static final String KEY = "source_uri";
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");
  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9._-]+");

  /** A corpus root as a URI prefix without a trailing {@code /}, and its label ("" for none). */
  record Root(String prefix, String label) {}

  private final List<Root> roots;

  private SourceUris(List<Root> roots) {
    List<Root> sorted = new ArrayList<>(roots);
    sorted.sort(Comparator.comparingInt((Root r) -> r.prefix().length()).reversed()); // the innermost root wins
    this.roots = List.copyOf(sorted);
  }

  /** No configured roots: local URIs are shown as their file names, others as indexed. */
  public static SourceUris none() {
    return new SourceUris(List.of());
  }

  /**
   * Roots given as {@code URI} or {@code URI=LABEL}: a URI as the build's {@code --corpus} named it
   * ({@code /data/corpus}, {@code file:///data/corpus}, {@code s3://bucket/corpus}; a relative path is
   * taken from the working directory, as the build takes it); a label of letters, digits, {@code .},
   * {@code _} and {@code -}.
   *
   * @throws IllegalArgumentException naming the spec
   */
  public static SourceUris parse(List<String> specs) {
    List<Root> roots = new ArrayList<>();
    for (String spec : specs) {
      int eq = spec.lastIndexOf('=');
      String uri = eq < 0 ? spec : spec.substring(0, eq);
      String label = eq < 0 ? "" : spec.substring(eq + 1);
      if (uri.isBlank()) {
        throw new IllegalArgumentException("'" + spec + "': no root URI before the label");
      }
      if (eq >= 0 && !LABEL.matcher(label).matches()) {
        throw new IllegalArgumentException("'" + spec + "': a label is letters, digits, '.', '_' and '-', was '"
            + label + "'");
      }
      String prefix = normalize(SCHEME.matcher(uri).matches() ? uri : "file:" + Path.of(uri).toAbsolutePath()
          .normalize());
      while (prefix.endsWith("/") && prefix.indexOf('/') < prefix.length() - 1) {
        prefix = prefix.substring(0, prefix.length() - 1);
      }
      roots.add(new Root(prefix, label));
    }
    return new SourceUris(roots);
  }

  /** {@code file:///x} and {@code file://localhost/x} as the readers write them: {@code file:/x}. */
  private static String normalize(String uri) {
    if (uri.startsWith("file:///")) {
      return "file:/" + uri.substring("file:///".length());
    }
    if (uri.startsWith("file://localhost/")) {
      return "file:/" + uri.substring("file://localhost/".length());
    }
    return uri;
  }

  /** {@code uri} as clients see it. */
  String show(String uri) {
    String u = normalize(uri);
    for (Root r : roots) {
      String relative = u.equals(r.prefix()) ? fileName(u)
          : u.startsWith(r.prefix().endsWith("/") ? r.prefix() : r.prefix() + "/")
              ? u.substring(r.prefix().length()).replaceFirst("^/", "") : null;
      if (relative != null) {
        return r.label().isEmpty() ? relative : r.label() + "/" + relative;
      }
    }
    return u.startsWith("file:") ? fileName(u) : uri;
  }

  private static String fileName(String uri) {
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  /** The response with every hit's {@code source_uri} shown as clients see it. */
  SearchResponse show(SearchResponse response) {
    List<SearchHit> hits = new ArrayList<>(response.results().size());
    for (SearchHit h : response.results()) {
      String source = h.metadata().get(KEY);
      if (source == null) {
        hits.add(h);
        continue;
      }
      Map<String, String> metadata = new LinkedHashMap<>(h.metadata());
      metadata.put(KEY, show(source));
      hits.add(new SearchHit(h.chunkId(), h.docId(), h.score(), h.text(), h.title(), metadata, h.relevance(),
          h.root()));
    }
    return new SearchResponse(response.snapshotId(), response.mode(), hits, response.reason());
  }
}
