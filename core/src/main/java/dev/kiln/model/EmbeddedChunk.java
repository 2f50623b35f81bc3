package dev.kiln.model;

/** A chunk with its passage embedding, ready to be written into a shard. */
public record EmbeddedChunk(Chunk chunk, float[] vector) {}
