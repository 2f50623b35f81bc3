package dev.kiln.search;

import dev.kiln.index.ShardSchema;
import dev.kiln.search.context.ParentLookup;
import dev.kiln.search.filter.MetadataFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * What a shard group may answer about the chunks a caller names. The phases after {@code legs}
 * ({@code fetch}, {@code chunks}, {@code rescore}, {@code again}'s {@code within}) take hit references
 * ({@code shard}, {@code doc}) from the router, and {@code context} takes a whole answer with its
 * chunks' ids: a caller that forged them could otherwise read chunks its API key's binding excludes.
 * Each reference is checked against the request's filter as narrowed by the key, which is the filter
 * the legs searched with, so the router's own references always pass.
 */
public final class HitScope {
  private HitScope() {}

  /**
   * The first of {@code hits} that is not a live chunk of this group's shards passing {@code filter}
   * (bound by {@link Searcher#bind}); empty when every one is.
   */
  public static Optional<ShardGroupSearch.Hit> firstOutside(Searcher searcher, List<ShardGroupSearch.Hit> hits,
      MetadataFilter filter) {
    if (hits.isEmpty()) {
      return Optional.empty();
    }
    try {
      IndexSearcher is = searcher.indexSearcher();
      Query q = searcher.bind(filter).toQuery();
      Weight weight = q == null ? null : is.createWeight(is.rewrite(q), ScoreMode.COMPLETE_NO_SCORES, 1f);
      List<LeafReaderContext> leaves = is.getIndexReader().leaves();
      for (ShardGroupSearch.Hit h : hits) {
        int doc;
        try {
          doc = ShardGroupSearch.docOf(searcher, h);
        } catch (IllegalArgumentException e) {
          return Optional.of(h);
        }
        if (!allowed(weight, leaves.get(ReaderUtil.subIndex(doc, leaves)), doc)) {
          return Optional.of(h);
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("checking hit references failed on snapshot " + searcher.snapshotId(), e);
    }
  }

  /** Whether {@code doc} (top-level id) is live in {@code leaf} and matched by {@code weight} (null: any). */
  private static boolean allowed(Weight weight, LeafReaderContext leaf, int doc) throws IOException {
    int local = doc - leaf.docBase;
    Bits live = leaf.reader().getLiveDocs();
    if (live != null && !live.get(local)) {
      return false;
    }
    if (weight == null) {
      return true;
    }
    // A fresh scorer per reference: iterators only move forward, and references come in rank order.
    Scorer scorer = weight.scorer(leaf);
    return scorer != null && scorer.iterator().advance(local) == local && local != DocIdSetIterator.NO_MORE_DOCS;
  }

  /**
   * Parents for {@code context}, read only for chunks this group can tie to the caller's rights: a hit
   * is looked up by its {@code chunk_id} among this group's live chunks passing {@code filter}, and its
   * parent is the one that stored chunk names, never the {@code parent_id} the caller sent. A hit it
   * cannot tie (another group's shard, or outside the filter) stands for itself with the text the
   * caller sent, which tells the caller nothing it did not already have.
   */
  public static ParentLookup parents(Searcher searcher, MetadataFilter filter) {
    ParentLookup store = searcher.parents();
    if (store == ParentLookup.NONE) {
      return store;
    }
    Query scope = searcher.bind(filter).toQuery();
    return hit -> stored(searcher, hit.chunkId(), scope).flatMap(store::parentOf);
  }

  /** The stored chunk {@code chunkId} of this group's shards, if it is live and passes {@code scope}. */
  private static Optional<SearchHit> stored(Searcher searcher, String chunkId, Query scope) {
    BooleanQuery.Builder q = new BooleanQuery.Builder()
        .add(new TermQuery(new Term(ShardSchema.CHUNK_ID, chunkId)), BooleanClause.Occur.FILTER);
    if (scope != null) {
      q.add(scope, BooleanClause.Occur.FILTER);
    }
    try {
      IndexSearcher is = searcher.indexSearcher();
      TopDocs top = is.search(q.build(), 1);
      return top.scoreDocs.length == 0 ? Optional.empty()
          : Optional.of(new HitReader(is).hit(top.scoreDocs[0].doc, 0));
    } catch (IOException e) {
      throw new UncheckedIOException("reading a chunk failed on snapshot " + searcher.snapshotId(), e);
    }
  }
}
