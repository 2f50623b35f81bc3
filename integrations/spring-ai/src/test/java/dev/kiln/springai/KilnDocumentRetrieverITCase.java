package dev.kiln.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnBackends;
import dev.kiln.client.KilnClientException;
import dev.kiln.client.KilnFixture;
import dev.kiln.client.UnsupportedFilterException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.vectorstore.filter.FilterExpressionBuilder;

/** {@link KilnDocumentRetriever} over a real snapshot and a real kiln serve, and in Spring AI's own RAG advisor. */
class KilnDocumentRetrieverITCase {
  @TempDir static Path root;
  private static KilnFixture kiln;
  private static KilnBackend embedded;
  private static KilnBackend http;

  @BeforeAll
  static void start() throws Exception {
    kiln = KilnFixture.start(root);
    embedded = KilnBackends.embedded(kiln.searcher());
    http = KilnBackends.http(kiln.url());
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    embedded.close();
    kiln.close();
  }

  private static List<String> docIds(List<Document> documents) {
    return documents.stream().map(d -> (String) d.getMetadata().get(KilnDocumentRetriever.DOC_ID)).toList();
  }

  @Test
  void hitsBecomeDocumentsWithKilnsMetadataAndScore() {
    for (KilnBackend backend : List.of(embedded, http)) {
      List<Document> documents = KilnDocumentRetriever.builder().backend(backend).topK(3).build()
          .retrieve(new Query("where does lava come from when a volcano erupts"));
      assertEquals(3, documents.size());
      Document first = documents.get(0);
      assertTrue(List.of("volcano", "lava").contains(docIds(documents).get(0)), docIds(documents).toString());
      assertEquals(first.getMetadata().get(KilnDocumentRetriever.DOC_ID) + "#0", first.getId());
      assertEquals(first.getId(), first.getMetadata().get(KilnDocumentRetriever.CHUNK_ID));
      assertEquals("geology", first.getMetadata().get("topic"));
      assertTrue(first.getScore() != null && first.getScore() > 0, String.valueOf(first.getScore()));
      assertTrue(first.getText().contains("lava"), first.getText());
    }
  }

  @Test
  void fixedAndPerQueryFiltersRestrictTheDocuments() {
    FilterExpressionBuilder b = new FilterExpressionBuilder();
    for (KilnBackend backend : List.of(embedded, http)) {
      KilnDocumentRetriever retriever = KilnDocumentRetriever.builder().backend(backend).topK(8)
          .filterExpression(b.and(b.eq("topic", "geology"), b.gte("year", 2020)).build()).build();
      assertEquals(List.of("lava", "vulkan"), docIds(retriever.retrieve(new Query("volcano"))).stream().sorted().toList());
      // As with Spring AI's vector store retriever, the query context's filter replaces the fixed one.
      Query german = Query.builder().text("Vulkan")
          .context(Map.of(VectorStoreDocumentRetriever.FILTER_EXPRESSION, "lang == 'de'")).build();
      assertEquals(List.of("vulkan"), docIds(retriever.retrieve(german)));
    }
  }

  @Test
  void aFilterKilnCannotEvaluateIsRefusedNotDropped() {
    assertThrows(UnsupportedFilterException.class, () -> KilnDocumentRetriever.builder().backend(embedded)
        .filterExpression("lang != 'de'"));
    KilnDocumentRetriever notRangeIndexed = KilnDocumentRetriever.builder().backend(http)
        .filterExpression("topic > 'g'").build();
    KilnClientException e = assertThrows(KilnClientException.class, () -> notRangeIndexed.retrieve(new Query("x")));
    assertTrue(e.getMessage().contains("'topic' is not range-indexed"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KilnDocumentRetriever.builder().build());
    assertThrows(IllegalArgumentException.class, () -> KilnDocumentRetriever.builder().backend(http).topK(0).build());
  }

  /** A chat model that answers with the prompt it was given, so the test sees what retrieval put in it. */
  private static final class EchoChatModel implements ChatModel {
    final List<String> prompts = new CopyOnWriteArrayList<>();

    @Override
    public ChatResponse call(Prompt prompt) {
      String text = prompt.getUserMessage().getText();
      prompts.add(text);
      return new ChatResponse(List.of(new Generation(new AssistantMessage("ECHO " + text))));
    }
  }

  @Test
  void theReadmeAdvisorAugmentsThePromptWithKilnsChunks() {
    EchoChatModel model = new EchoChatModel();
    ChatClient client = ReadmeExample.chatClient(kiln.url(), model);
    String answer = client.prompt().user("Where does lava come from?").call().content();
    assertEquals(1, model.prompts.size());
    String prompt = model.prompts.get(0);
    assertTrue(prompt.contains("Where does lava come from?"), prompt);
    // The README's filter: English, 2020 or later. Only the shield volcano chunk (2024) is geology that passes.
    assertTrue(prompt.contains("Basaltic lava from a shield volcano"), prompt);
    assertFalse(prompt.contains("Magma rises through the crust"), "volcano#0 is from 2019: " + prompt);
    assertFalse(prompt.contains("Magma steigt"), "vulkan#0 is German: " + prompt);
    assertEquals("ECHO " + prompt, answer);

    // A per-request filter through the advisor context, Spring AI's way.
    String german = client.prompt().user("Vulkan")
        .advisors(a -> a.param(VectorStoreDocumentRetriever.FILTER_EXPRESSION, "lang == 'de'")).call().content();
    assertTrue(german.contains("Magma steigt"), german);
    assertFalse(german.contains("Basaltic lava"), german);
  }
}
