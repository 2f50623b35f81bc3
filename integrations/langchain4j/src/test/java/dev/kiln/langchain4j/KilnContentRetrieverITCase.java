package dev.kiln.langchain4j;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnBackends;
import dev.kiln.client.KilnClientException;
import dev.kiln.client.KilnFixture;
import dev.kiln.client.UnsupportedFilterException;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KilnContentRetriever} over a real snapshot and a real kiln serve, and in LangChain4j's own RAG pipeline. */
class KilnContentRetrieverITCase {
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

  private static List<String> docIds(List<Content> contents) {
    return contents.stream().map(c -> c.textSegment().metadata().getString(KilnContentRetriever.DOC_ID)).toList();
  }

  @Test
  void hitsBecomeContentsWithKilnsMetadataAndScore() {
    for (KilnBackend backend : List.of(embedded, http)) {
      List<Content> contents = KilnContentRetriever.builder().backend(backend).maxResults(3).build()
          .retrieve(Query.from("where does lava come from when a volcano erupts"));
      assertEquals(3, contents.size());
      Content first = contents.get(0);
      assertTrue(List.of("volcano", "lava").contains(docIds(contents).get(0)), docIds(contents).toString());
      dev.langchain4j.data.document.Metadata m = first.textSegment().metadata();
      assertEquals("geology", m.getString("topic"));
      assertEquals("en", m.getString("lang"));
      assertEquals(m.getString(KilnContentRetriever.DOC_ID) + "#0", m.getString(KilnContentRetriever.CHUNK_ID));
      assertEquals(m.getString(KilnContentRetriever.CHUNK_ID), first.metadata().get(ContentMetadata.EMBEDDING_ID));
      assertTrue(first.metadata().get(ContentMetadata.SCORE) instanceof Double);
      assertTrue(first.textSegment().text().contains("lava"), first.textSegment().text());
    }
  }

  @Test
  void fixedAndDynamicFiltersRestrictTheContents() {
    for (KilnBackend backend : List.of(embedded, http)) {
      KilnContentRetriever fixed = KilnContentRetriever.builder().backend(backend).maxResults(8)
          .filter(metadataKey("topic").isEqualTo("geology").and(metadataKey("year").isGreaterThanOrEqualTo(2020)))
          .build();
      assertEquals(List.of("lava", "vulkan"), docIds(fixed.retrieve(Query.from("volcano"))).stream().sorted().toList());
      // The user's language, from the chat memory id, decides the filter per query.
      KilnContentRetriever dynamic = KilnContentRetriever.builder().backend(backend).maxResults(8)
          .dynamicFilter(q -> metadataKey("lang").isEqualTo(q.metadata().chatMemoryId().toString())
              .and(metadataKey("topic").isEqualTo("geology")))
          .build();
      assertEquals(List.of("vulkan"), docIds(dynamic.retrieve(Query.from("Vulkan",
          Metadata.from(UserMessage.from("Vulkan"), "de", List.of())))));
    }
  }

  @Test
  void aFilterKilnCannotEvaluateIsRefusedNotDropped() {
    assertThrows(UnsupportedFilterException.class, () -> KilnContentRetriever.builder().backend(embedded)
        .filter(metadataKey("lang").isNotEqualTo("de")).build());
    KilnContentRetriever notRangeIndexed = KilnContentRetriever.builder().backend(http)
        .filter(metadataKey("topic").isGreaterThan("g")).build();
    KilnClientException e = assertThrows(KilnClientException.class, () -> notRangeIndexed.retrieve(Query.from("x")));
    assertTrue(e.getMessage().contains("'topic' is not range-indexed"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KilnContentRetriever.builder().build());
    assertThrows(IllegalArgumentException.class, () -> KilnContentRetriever.builder().backend(http).maxResults(0).build());
  }

  /** A chat model that answers with the prompt it was given, so the test sees what retrieval put in it. */
  private static final class EchoChatModel implements ChatModel {
    final List<String> prompts = new CopyOnWriteArrayList<>();

    @Override
    public ChatResponse doChat(ChatRequest request) {
      ChatMessage last = request.messages().get(request.messages().size() - 1);
      String prompt = ((UserMessage) last).singleText();
      prompts.add(prompt);
      return ChatResponse.builder().aiMessage(AiMessage.from("ECHO " + prompt)).build();
    }
  }

  @Test
  void theReadmePipelineAugmentsThePromptWithKilnsChunks() {
    EchoChatModel model = new EchoChatModel();
    ReadmeExample.Assistant assistant = ReadmeExample.assistant(kiln.url(), model);
    String answer = assistant.answer("Where does lava come from?");
    assertEquals(1, model.prompts.size());
    String prompt = model.prompts.get(0);
    assertTrue(prompt.startsWith("Where does lava come from?"), prompt);
    // The README's filter: English, 2020 or later. Only the shield volcano chunk (2024) is geology that passes.
    assertTrue(prompt.contains("Basaltic lava from a shield volcano"), prompt);
    assertFalse(prompt.contains("Magma rises through the crust"), "volcano#0 is from 2019: " + prompt);
    assertFalse(prompt.contains("Magma steigt"), "vulkan#0 is German: " + prompt);
    assertEquals("ECHO " + prompt, answer);
  }
}
