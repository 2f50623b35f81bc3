package dev.kiln.search.http;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** What one class logs while it is open: each event's message, then its exception's stack trace. */
final class CapturedLog implements AutoCloseable {
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Logger logger;
  private final AbstractAppender appender;

  CapturedLog(Class<?> of) {
    logger = (Logger) LogManager.getLogger(of);
    appender = new AbstractAppender("captured-" + of.getSimpleName() + "-" + System.nanoTime(), null, null, true,
        Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        StringWriter text = new StringWriter().append(event.getMessage().getFormattedMessage());
        if (event.getThrown() != null) {
          event.getThrown().printStackTrace(new PrintWriter(text.append('\n')));
        }
        events.add(text.toString());
      }
    };
    appender.start();
    logger.addAppender(appender);
  }

  List<String> events() {
    return List.copyOf(events);
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
    appender.stop();
  }
}
