package dev.kiln.search.parents;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A parent returned instead of its children ({@code --expand parents}).
 *
 * @param parentId the parent's id ({@code docId#p<ordinal>}); for a chunk without a parent (a
 *     snapshot built without parent-child chunking) the chunk's own id
 * @param docId the document it belongs to
 * @param score the score of its best child in the ranking it was expanded from
 * @param title the document title
 * @param breadcrumb heading path of the parent's section, or empty
 * @param text the parent's text
 * @param childIds ids of the retrieved children that point to it, best first
 */
public record ParentHit(
    @JsonProperty("parent_id") String parentId,
    @JsonProperty("doc_id") String docId,
    @JsonProperty("score") double score,
    @JsonProperty("title") String title,
    @JsonProperty("breadcrumb") String breadcrumb,
    @JsonProperty("text") String text,
    @JsonProperty("child_ids") List<String> childIds) {}
