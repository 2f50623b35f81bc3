package dev.kiln.langchain4j;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnBackends;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.rag.DefaultRetrievalAugmentor;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.service.AiServices;
import java.net.URI;

/** The README's "Use from LangChain4j" snippet, compiled and run by {@link KilnContentRetrieverITCase}. */
final class ReadmeExample {
  // README-START
  interface Assistant {
    String answer(String question);
  }

  static Assistant assistant(URI kilnServe, ChatModel chatModel) {
    KilnBackend kiln = KilnBackends.http(kilnServe); // or KilnBackends.open("kiln-data/snapshots"): in-process
    ContentRetriever retriever = KilnContentRetriever.builder()
        .backend(kiln)
        .maxResults(3)
        .filter(metadataKey("lang").isEqualTo("en").and(metadataKey("year").isGreaterThanOrEqualTo(2020)))
        .build();
    return AiServices.builder(Assistant.class)
        .chatModel(chatModel)
        .retrievalAugmentor(DefaultRetrievalAugmentor.builder().contentRetriever(retriever).build())
        .build();
  }
  // README-END

  private ReadmeExample() {}
}
