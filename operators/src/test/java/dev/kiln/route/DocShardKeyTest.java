package dev.kiln.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

class DocShardKeyTest {
  record Piece(String docId, int ordinal) {}

  @Test
  void everyPieceOfADocumentGoesToTheDocumentsShard() {
    DocShardKey<Piece> key = new DocShardKey<>(7, Piece::docId);
    for (String doc : new String[] {"a", "doc-42", "CACM-1410", "文档"}) {
      int shard = ShardRouter.shardOf(doc, 7);
      assertEquals(shard, key.getKey(new Piece(doc, 0)));
      assertEquals(shard, key.getKey(new Piece(doc, 5)));
    }
  }

  /** Flink ships key selectors to the TaskManagers, so the document-id function must survive serialisation. */
  @Test
  @SuppressWarnings("unchecked")
  void survivesJavaSerialisation() throws Exception {
    DocShardKey<Piece> key = new DocShardKey<>(3, Piece::docId);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(key);
    }
    DocShardKey<Piece> copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (DocShardKey<Piece>) in.readObject();
    }
    assertEquals(ShardRouter.shardOf("doc-9", 3), copy.getKey(new Piece("doc-9", 1)));
  }
}
