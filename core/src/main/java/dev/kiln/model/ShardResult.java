package dev.kiln.model;

/**
 * What a shard writer reports when it has finished one shard.
 *
 * @param shard shard number
 * @param directory where the shard's Lucene index was written
 * @param chunks chunks written
 * @param documents distinct documents written
 * @param writerSubtask the subtask that wrote it (two results for one shard mean two attempts)
 */
public record ShardResult(int shard, String directory, long chunks, long documents, int writerSubtask)
    implements java.io.Serializable {}
