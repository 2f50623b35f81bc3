package dev.kiln.search;

/**
 * One candidate of a {@link Retriever}: a doc id of the snapshot's {@code IndexSearcher} and its
 * score. The score is a double so that fused scores reach the hit unrounded.
 */
public record Candidate(int doc, double score) {}
