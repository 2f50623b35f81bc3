package dev.kiln.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.testing.TestSeeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestSeeds.class)
class ChangeOpTest {
  static ChangeOp up(int partition, long offset) {
    return ChangeOp.upsert(new Document("a", "", "text " + offset, Map.of(), "kafka://t/" + partition), partition, offset);
  }

  static ChangeOp del(int partition, long offset) {
    return ChangeOp.delete("a", partition, offset);
  }

  /** What the resolve stage keeps of several ops on one id, in whatever order they arrive. */
  static ChangeOp winner(List<ChangeOp> ops) {
    ChangeOp w = null;
    for (ChangeOp op : ops) {
      if (w == null || op.supersedes(w)) {
        w = op;
      }
    }
    return w;
  }

  @Test
  void theHighestOffsetInAPartitionWins() {
    assertTrue(del(0, 5).supersedes(up(0, 4)));
    assertFalse(up(0, 4).supersedes(del(0, 5)));
    assertEquals(ChangeOp.Kind.UPSERT, winner(List.of(del(0, 1), up(0, 2))).kind());
    assertEquals(ChangeOp.Kind.DELETE, winner(List.of(up(0, 1), del(0, 2))).kind());
  }

  @Test
  void acrossPartitionsTheHigherPartitionWinsWhateverTheOffsets() {
    assertTrue(up(1, 0).supersedes(del(0, 100)));
    assertFalse(del(0, 100).supersedes(up(1, 0)));
  }

  @Test
  void theWinnerDoesNotDependOnArrivalOrder(Random random) {
    List<ChangeOp> ops = new ArrayList<>(List.of(up(0, 3), del(0, 7), up(0, 9), del(1, 2), up(1, 1), del(0, 8)));
    for (int i = 0; i < 50; i++) {
      Collections.shuffle(ops, random);
      ChangeOp w = winner(ops);
      assertEquals(1, w.partition());
      assertEquals(2, w.offset());
      assertEquals(ChangeOp.Kind.DELETE, w.kind());
    }
  }
}
