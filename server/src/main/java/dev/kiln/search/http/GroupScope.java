package dev.kiln.search.http;

import dev.kiln.search.HitScope;
import dev.kiln.search.Searcher;
import dev.kiln.search.ShardGroupSearch;
import dev.kiln.search.filter.MetadataFilter;
import java.util.List;

/**
 * The check every phase of {@code /internal/group} that takes hit references makes before reading
 * them ({@link HitScope}): each must be a live chunk of this group's shards that the request's filter,
 * narrowed by the client's API key, lets through. One reference outside refuses the whole phase (403),
 * rather than dropping it: the router's own references always pass (they come from legs searched with
 * that filter), so one that does not is a forged call, and a partial answer would misalign the hits
 * with the router's list.
 */
final class GroupScope {
  private GroupScope() {}

  /** Refused: {@link GroupEndpoint} answers 403 with the message. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  /** {@code hits}, once each is checked. */
  static List<ShardGroupSearch.Hit> checked(Searcher searcher, List<ShardGroupSearch.Hit> hits,
      MetadataFilter filter) {
    HitScope.firstOutside(searcher, hits, filter).ifPresent(h -> {
      // The same words whether the chunk is another tenant's, deleted or not served here: no oracle.
      throw new Refused("hit shard " + h.shard() + " doc " + h.doc() + " is not a chunk this request may read"
          + " (its filter, narrowed by the client's API key): /internal/group answers only about chunks its"
          + " legs found");
    });
    return hits;
  }
}
