package dev.kiln.springai;

import dev.kiln.client.KilnBackend;
import dev.kiln.client.KilnBackends;
import java.net.URI;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.rag.advisor.RetrievalAugmentationAdvisor;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;

/** The README's "Use from Spring AI" snippet, compiled and run by {@link KilnDocumentRetrieverITCase}. */
final class ReadmeExample {
  // README-START
  static ChatClient chatClient(URI kilnServe, ChatModel chatModel) {
    KilnBackend kiln = KilnBackends.http(kilnServe); // or KilnBackends.open("kiln-data/snapshots"): in-process
    DocumentRetriever retriever = KilnDocumentRetriever.builder()
        .backend(kiln)
        .topK(3)
        .filterExpression("lang == 'en' && year >= 2020")
        .build();
    return ChatClient.builder(chatModel)
        .defaultAdvisors(RetrievalAugmentationAdvisor.builder().documentRetriever(retriever).build())
        .build();
  }
  // README-END

  private ReadmeExample() {}
}
