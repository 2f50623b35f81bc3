package dev.kiln.search;

import org.apache.lucene.document.Document;

/**
 * One candidate of a {@link Retriever}: a doc id of the snapshot's {@code IndexSearcher} and its
 * score. The score is a double so that fused scores reach the hit unrounded.
 *
 * @param stored the candidate's stored fields when its retriever has read them already (lexical
 *     feedback reads its chunks whole, and most of them come back as hits), or null: the caller reads
 *     them. Not part of a candidate's identity: two candidates are equal on doc and score.
 */
public record Candidate(int doc, double score, Document stored) {
  public Candidate(int doc, double score) {
    this(doc, score, null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Candidate c && c.doc == doc && Double.compare(c.score, score) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * Integer.hashCode(doc) + Double.hashCode(score);
  }

  @Override
  public String toString() {
    return "Candidate[doc=" + doc + ", score=" + score + (stored != null ? ", read" : "") + "]";
  }
}
