package dev.kiln.search.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kiln.search.HitScope;
import dev.kiln.search.SearchHit;
import dev.kiln.search.Searcher;
import dev.kiln.search.context.ParentLookup;
import dev.kiln.search.filter.MetadataFilter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Parents across shard groups for a routed {@code /context} (docs/FORMATS.md, "Shard group protocol",
 * version 5). A group holds only its own shards' docstore parts, and {@link HitScope#parents} ties a
 * parent only to a chunk of its own shards, so the group that packs a routed answer cannot find the
 * parents of the other groups' hits. The router therefore asks each other group that owns hits for
 * their parents (phase {@code parents}: {@link #resolve}) and sends them to the packing group with the
 * answer ({@link #lookup}).
 */
final class GroupParents {
  private GroupParents() {}

  /**
   * Phase {@code parents}: the parents of {@code chunkIds} that this group can tie to the caller's
   * rights ({@link HitScope#parents}: a live chunk of its shards passing {@code filter}, the filter
   * narrowed by the client's key; empty when the key excludes the filter entirely), in the order given;
   * a chunk it cannot tie, or one without a parent, is left out. Each is {@code {"chunk_id",
   * "parent_id", "text"}}.
   */
  static ArrayNode resolve(Searcher searcher, Optional<MetadataFilter> filter, JsonNode chunkIds) {
    if (!chunkIds.isArray()) {
      throw new BadRequest("the parents phase needs 'chunk_ids': an array of the chunk ids to find parents for");
    }
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    if (filter.isEmpty()) {
      return out;
    }
    ParentLookup scoped = HitScope.parents(searcher, filter.get());
    for (JsonNode id : chunkIds) {
      if (!id.isTextual()) {
        throw new BadRequest("'chunk_ids' must hold strings, found " + id);
      }
      // HitScope reads only the chunk id: the parent id comes from the stored chunk, not the caller.
      scoped.parentOf(new SearchHit(id.asText(), "", 0, null, null, Map.of()))
          .ifPresent(p -> out.addObject().put("chunk_id", id.asText()).put("parent_id", p.id()).put("text", p.text()));
    }
    return out;
  }

  /**
   * The context phase's lookup: this group's own scoped lookup first ({@code own}), then the parents
   * the router sent in {@code supplied} (what {@link #resolve} answered it, by the other groups).
   *
   * <p>Trusting {@code supplied} is safe: only a key without bindings may call {@code /internal/group}
   * (a router's), and a parent it sends here is only echoed back in this phase's answer to that same
   * caller, which already holds its text; it reaches a client only as the router obtained it, acting
   * with that client's key, from the group that owns the chunk. A forged parent therefore reveals
   * nothing the forger did not have, as a forged hit text in {@code response} reveals nothing. A parent
   * this group finds itself is never replaced by a supplied one.
   */
  static ParentLookup lookup(ParentLookup own, JsonNode supplied) {
    if (supplied == null || supplied.isMissingNode() || supplied.isNull()) {
      return own;
    }
    if (!supplied.isArray()) {
      throw new BadRequest("'parents' must be an array of {chunk_id, parent_id, text}");
    }
    Map<String, ParentLookup.Parent> byChunk = new HashMap<>();
    for (JsonNode p : supplied) {
      String chunk = p.path("chunk_id").asText(null);
      String id = p.path("parent_id").asText(null);
      String text = p.path("text").asText(null);
      if (chunk == null || id == null || text == null) {
        throw new BadRequest("each of 'parents' needs chunk_id, parent_id and text, found " + p);
      }
      byChunk.put(chunk, new ParentLookup.Parent(id, text));
    }
    return hit -> {
      Optional<ParentLookup.Parent> mine = own.parentOf(hit);
      return mine.isPresent() ? mine : Optional.ofNullable(byChunk.get(hit.chunkId()));
    };
  }
}
