package dev.kiln.client;

import dev.kiln.config.ConfigException;
import dev.kiln.search.RetrievalPath;
import dev.kiln.search.SearchHit;
import dev.kiln.search.SearchMode;
import dev.kiln.search.SearchRequest;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/** A snapshot (or federated roots) searched in this JVM. */
final class EmbeddedBackend implements KilnBackend {
  private final RetrievalPath path;
  private final boolean owned;

  EmbeddedBackend(RetrievalPath path, boolean owned) {
    this.path = Objects.requireNonNull(path, "searcher");
    this.owned = owned;
  }

  @Override
  public List<SearchHit> search(String query, SearchMode mode, int k, KilnFilter filter) {
    if (filter.matchesNothing()) {
      return List.of();
    }
    try {
      return path.search(new SearchRequest(query, mode, k, toMetadataFilter(filter))).results();
    } catch (ConfigException | IllegalArgumentException e) {
      // A refused filter (FilterException) or query (SearchRequest's limits): the caller sees Kiln's reason.
      throw new KilnClientException(e.getMessage(), 0, e);
    }
  }

  /** Ranges through Kiln's parser; exact values as a map, so no value is ever parsed as an operator. */
  static MetadataFilter toMetadataFilter(KilnFilter filter) {
    if (filter.isEmpty()) {
      return MetadataFilter.none();
    }
    List<String> ranges = filter.ranges().stream().map(KilnFilter.Range::expression).toList();
    return MetadataFilter.parse(ranges).withConditions(filter.exact());
  }

  @Override
  public void close() {
    if (owned) {
      try {
        path.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
