package dev.kiln.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CandidateCosinesTest {
  @Test
  void sentencesAreCutAtSentenceEndsNotAtDecimals() {
    List<String> s = CandidateCosines.sentences(
        "IL-6 rose 2.5-fold in mice (p < 0.01). No effect was seen in vitro?  Results were replicated.");
    assertEquals(List.of("IL-6 rose 2.5-fold in mice (p < 0.01).", "No effect was seen in vitro?",
        "Results were replicated."), s);
  }

  @Test
  void representationsOfOneDocument() {
    assertEquals(List.of("A title body text."), CandidateCosines.Representation.DOCUMENT.pieces("A title", "body text."));
    assertEquals(List.of("A title"), CandidateCosines.Representation.TITLE.pieces("A title ", "body"));
    assertEquals(List.of(), CandidateCosines.Representation.TITLE.pieces("  ", "body"));
    assertEquals(List.of("One.", "Two."), CandidateCosines.Representation.SENTENCES.pieces("T", "One. Two."));
  }

  @Test
  void topDocumentsFollowRankNotFileOrder(@TempDir Path dir) throws Exception {
    Path run = dir.resolve("run.txt");
    Files.writeString(run, """
        q1 Q0 d3 3 0.5 kiln
        q1 Q0 d1 1 0.9 kiln
        q1 Q0 d2 2 0.7 kiln
        q2 Q0 d9 1 0.3 kiln
        """);
    Map<String, List<String>> top = CandidateCosines.topDocuments(run, 2);
    assertEquals(List.of("d1", "d2"), top.get("q1"));
    assertEquals(List.of("d9"), top.get("q2"));
  }
}
