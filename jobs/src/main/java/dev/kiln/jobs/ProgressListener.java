package dev.kiln.jobs;

import dev.kiln.cli.progress.BuildProgress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;

/**
 * Feeds a {@link BuildProgress} while the build job runs: from submission it polls the job's
 * accumulators through its {@link JobClient} every {@code poll} (they reach the JobManager with each
 * TaskManager heartbeat, so the local mini-cluster beats every second, {@link FlinkBuildBackend}), and when
 * the job ends it reports the final counts. Registered on the environment, so the job itself is unchanged;
 * the job's live Flink metrics could feed the same reporter later.
 */
final class ProgressListener implements JobListener {
  private final BuildProgress progress;
  private final Duration poll;
  private final AtomicReference<Map<String, Object>> latest = new AtomicReference<>(Map.of());
  private ScheduledExecutorService poller;
  private ScheduledFuture<?> polling;

  ProgressListener(BuildProgress progress, Duration poll) {
    this.progress = progress;
    this.poll = poll;
  }

  @Override
  public void onJobSubmitted(JobClient client, Throwable failure) {
    if (client == null) {
      return; // the submission failed; onJobExecuted reports it
    }
    poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "kiln-build-progress");
      t.setDaemon(true);
      return t;
    });
    polling = poller.scheduleWithFixedDelay(() -> poll(client), poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void poll(JobClient client) {
    try {
      Map<String, Object> accumulators = client.getAccumulators().get(poll.toMillis() * 5, TimeUnit.MILLISECONDS);
      latest.set(accumulators);
      progress.update(BuildStages.of(accumulators));
    } catch (ExecutionException | TimeoutException e) {
      // The job is finishing (its graph archived) or the JobManager is slow: the next poll, or the final
      // counts, will tell. Progress is never worth failing a build over.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // As above: a reporter's or a counter's surprise must not kill the poller thread silently mid-build.
    }
  }

  @Override
  public void onJobExecuted(JobExecutionResult result, Throwable failure) {
    if (poller != null) {
      polling.cancel(true);
      poller.shutdownNow();
      try {
        // No update may race the final one below.
        poller.awaitTermination(poll.toMillis() * 10, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Map<String, Object> last = result != null && result.isJobExecutionResult()
        ? result.getAllAccumulatorResults() : latest.get();
    progress.finish(BuildStages.of(last));
  }
}
