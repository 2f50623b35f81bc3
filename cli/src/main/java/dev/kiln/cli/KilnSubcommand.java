package dev.kiln.cli;

/**
 * A picocli command (annotated with {@code @Command}) that another module adds to {@code kiln},
 * registered as a {@link java.util.ServiceLoader} service in
 * {@code META-INF/services/dev.kiln.cli.KilnSubcommand}. The build job's module adds {@code build}
 * and {@code regress} this way, so that this module, and with it {@code search} and {@code serve},
 * needs no Flink.
 */
public interface KilnSubcommand {}
