package dev.kiln.snapshot.io;

import java.io.IOException;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 client a snapshots root is read and written through: credentials, endpoint, checksums, retries. */
final class S3Clients {
  private S3Clients() {}

  static S3Client client(S3Settings settings) {
    AwsCredentialsProvider credentials = settings.accessKey() != null
        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()))
        : DefaultCredentialsProvider.builder().build();
    var builder = S3Client.builder()
        .httpClient(UrlConnectionHttpClient.create())
        .region(Region.of(settings.region()))
        .credentialsProvider(credentials)
        .forcePathStyle(settings.pathStyle())
        // Only what S3 requires: S3-compatible servers differ in support for the newer checksum trailers.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(retryStrategy(settings.maxAttempts())));
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    }
    return builder.build();
  }

  /**
   * The SDK's standard retries (5xx, throttling, broken connections) with {@code maxAttempts}
   * attempts in all, an exponential back-off with jitter (from 100 ms, at most 5 s between attempts;
   * from 500 ms, at most 10 s, after a throttling answer such as {@code SlowDown}), and no circuit
   * breaker: a burst of failures must not make later requests of a long build fail without a try. An
   * answer whose body broke off is retried too, also where the SDK reports it as unparseable XML.
   */
  static RetryStrategy retryStrategy(int maxAttempts) {
    return AwsRetryStrategy.standardRetryStrategy().toBuilder()
        .maxAttempts(maxAttempts)
        .backoffStrategy(BackoffStrategy.exponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(5)))
        .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(Duration.ofMillis(500), Duration.ofSeconds(10)))
        .circuitBreakerEnabled(false)
        // A body cut short fails inside the XML parser (a listing): its root cause is the broken read.
        .retryOnRootCauseInstanceOf(IOException.class)
        .build();
  }
}
