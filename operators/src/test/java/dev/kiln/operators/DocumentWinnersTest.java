package dev.kiln.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.model.RecordPosition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DocumentWinnersTest {

  /** One piece: the document id, its record, and its number within the record. */
  private record Piece(String docId, RecordPosition record, int n) {}

  /**
   * A writer that applies the decisions as the shard writer does (REPLACE deletes every piece of the id
   * written so far); whatever the arrival order, what it holds at the end is exactly the pieces of each
   * id's first record, every other record is reported lost exactly once, and the pieces discarded or
   * dropped add up to the rest.
   */
  @Test
  void everyArrivalOrderKeepsExactlyThePiecesOfEachIdsFirstRecordAndReportsEachLoserOnce() {
    for (int seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      List<Piece> pieces = new ArrayList<>();
      Map<String, RecordPosition> first = new HashMap<>();
      Set<RecordPosition> used = new HashSet<>();
      int expectedLosers = 0;
      int ids = 1 + random.nextInt(40);
      for (int i = 0; i < ids; i++) {
        String id = "doc-" + i;
        int records = 1 + random.nextInt(4);
        for (int r = 0; r < records; r++) {
          RecordPosition at;
          do {
            at = new RecordPosition("file:/corpus/part-" + random.nextInt(3) + ".jsonl", random.nextInt(1000) * 100L);
          } while (!used.add(at));
          if (!first.containsKey(id) || at.precedes(first.get(id))) {
            first.put(id, at);
          }
          int n = 1 + random.nextInt(5);
          for (int k = 0; k < n; k++) {
            pieces.add(new Piece(id, at, k));
          }
        }
        expectedLosers += records - 1;
      }
      Collections.shuffle(pieces, random);

      DocumentWinners winners = new DocumentWinners();
      List<Piece> held = new ArrayList<>();
      List<RecordPosition> losers = new ArrayList<>();
      long gone = 0;
      for (Piece p : pieces) {
        DocumentWinners.Decision d = winners.offer(p.docId(), p.record());
        if (d.loser() != null) {
          losers.add(d.loser());
        }
        switch (d.action()) {
          case WRITE -> held.add(p);
          case REPLACE -> {
            int before = held.size();
            held.removeIf(h -> h.docId().equals(p.docId()));
            assertEquals(before - held.size(), d.discarded(), "seed " + seed + ": discarded count");
            gone += d.discarded();
            held.add(p);
          }
          case DROP -> gone++;
        }
      }
      for (Piece h : held) {
        assertEquals(first.get(h.docId()), h.record(), "seed " + seed + ": a piece of a losing record was kept");
      }
      long expectedHeld = pieces.stream().filter(p -> p.record().equals(first.get(p.docId()))).count();
      assertEquals(expectedHeld, held.size(), "seed " + seed + ": every piece of every winner is held");
      assertEquals(pieces.size() - expectedHeld, gone, "seed " + seed);
      assertEquals(expectedLosers, losers.size(), "seed " + seed + ": each losing record reported once");
      assertEquals(expectedLosers, new HashSet<>(losers).size(), "seed " + seed);
      assertTrue(losers.stream().noneMatch(first::containsValue), "seed " + seed + ": a winner was reported lost");
      assertEquals(ids, winners.size());
    }
  }

  @Test
  void aLaterRecordIsDroppedAndAnEarlierOneReplacesNamingTheWinner() {
    DocumentWinners w = new DocumentWinners();
    RecordPosition b = new RecordPosition("file:/c/b.jsonl", 0);
    RecordPosition a = new RecordPosition("file:/c/a.jsonl", 900);
    RecordPosition b2 = new RecordPosition("file:/c/b.jsonl", 40);
    assertEquals(DocumentWinners.Decision.WRITE, w.offer("x", b));
    assertEquals(DocumentWinners.Decision.WRITE, w.offer("x", b));
    DocumentWinners.Decision dropped = w.offer("x", b2);
    assertEquals(DocumentWinners.Action.DROP, dropped.action());
    assertEquals(b2, dropped.loser());
    assertEquals(b, dropped.winner());
    DocumentWinners.Decision again = w.offer("x", b2);
    assertEquals(DocumentWinners.Action.DROP, again.action());
    assertNull(again.loser(), "a loser is reported once, not once per piece");
    DocumentWinners.Decision replaced = w.offer("x", a);
    assertEquals(DocumentWinners.Action.REPLACE, replaced.action());
    assertEquals(b, replaced.loser());
    assertEquals(a, replaced.winner());
    assertEquals(2, replaced.discarded(), "both pieces of b.jsonl @ 0 were written");
    assertEquals(DocumentWinners.Action.DROP, w.offer("x", b).action());
    assertNull(w.offer("x", b).loser(), "the former winner was reported when it lost");
  }

  /** An unchanged record is a winner of no pieces: replacing it discards nothing, replacing by it all. */
  @Test
  void anUnchangedRecordTakesPartWithoutPieces() {
    DocumentWinners w = new DocumentWinners();
    RecordPosition a = new RecordPosition("file:/c/a.jsonl", 0);
    RecordPosition b = new RecordPosition("file:/c/b.jsonl", 0);
    RecordPosition c = new RecordPosition("file:/c/c.jsonl", 0);
    assertEquals(DocumentWinners.Action.WRITE, w.offer("x", c).action());
    assertEquals(DocumentWinners.Action.WRITE, w.offer("x", c).action());
    DocumentWinners.Decision byUnchanged = w.offerUnchanged("x", b);
    assertEquals(DocumentWinners.Action.REPLACE, byUnchanged.action());
    assertEquals(2, byUnchanged.discarded(), "the two written pieces of c go");
    assertEquals(c, byUnchanged.loser());
    DocumentWinners.Decision ofUnchanged = w.offer("x", a);
    assertEquals(DocumentWinners.Action.REPLACE, ofUnchanged.action());
    assertEquals(0, ofUnchanged.discarded(), "nothing was written for the unchanged record");
    assertEquals(b, ofUnchanged.loser());
    DocumentWinners.Decision late = w.offerUnchanged("x", new RecordPosition("file:/c/d.jsonl", 0));
    assertEquals(DocumentWinners.Action.DROP, late.action());
    assertEquals(a, late.winner());
  }

  /** Ids are hashed, not cut: 64-character hex ids that share their first 128 bits stay apart. */
  @Test
  void hexIdsThatShareALongPrefixAreDifferentDocuments() {
    DocumentWinners w = new DocumentWinners();
    String prefix = "0123456789abcdef0123456789abcdef";
    String one = prefix + "00000000000000000000000000000000";
    String two = prefix + "ffffffffffffffffffffffffffffffff";
    assertEquals(DocumentWinners.Action.WRITE, w.offer(one, new RecordPosition("file:/c/a", 0)).action());
    assertEquals(DocumentWinners.Action.WRITE, w.offer(two, new RecordPosition("file:/c/b", 0)).action());
    assertEquals(2, w.size());
  }

  @Test
  void piecesWithoutAPositionAreWrittenAsTheyCome() {
    DocumentWinners w = new DocumentWinners();
    assertEquals(DocumentWinners.Decision.WRITE, w.offer("x", null));
    assertEquals(DocumentWinners.Decision.WRITE, w.offer("x", null));
    assertEquals(0, w.size());
  }

  /** The table grows past its first capacity without losing a winner. */
  @Test
  void aMillionIdsKeepTheirWinnersAcrossGrowth() {
    DocumentWinners w = new DocumentWinners();
    RecordPosition late = new RecordPosition("file:/c/z.jsonl", 0);
    RecordPosition early = new RecordPosition("file:/c/a.jsonl", 0);
    int n = 1_000_000;
    for (int i = 0; i < n; i++) {
      w.offer("id-" + i, late);
    }
    assertEquals(n, w.size());
    for (int i = 0; i < n; i += 9973) {
      DocumentWinners.Decision d = w.offer("id-" + i, early);
      assertEquals(DocumentWinners.Action.REPLACE, d.action(), "id-" + i);
      assertEquals(1, d.discarded());
    }
    assertEquals(n, w.size());
  }
}
