package dev.kiln.snapshot;

/**
 * What one metadata request (an S3 HEAD, an HDFS {@code getFileStatus}) says about an object: its
 * size, and — where the store keeps one — a version token that changes whenever the object is
 * rewritten or replaced (S3: ETag and Last-Modified; HDFS: the file id and modification time), with
 * the size inside it. {@code version} is null where the store keeps none: then nothing can be vouched
 * for by it, and a reader hashes.
 *
 * <p>A token is opaque: it is only ever compared for equality with a token the same store gave for
 * the same key, recorded in a {@code VERIFIED} record ({@link VerifiedRecord#versions}).
 */
public record ObjectStat(long size, String version) {}
