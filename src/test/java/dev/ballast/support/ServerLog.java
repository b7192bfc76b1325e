package dev.ballast.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * What the registry nodes in this JVM log at ERROR while it is open, for a test that
 * holds that junk input never makes the server fail: an ERROR line is a fault, whatever
 * the answer said.
 */
public final class ServerLog implements AutoCloseable {

	private final List<String> errors = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
		@Override
		protected void append(ILoggingEvent event) {
			if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
				errors.add(event.getLoggerName() + ": " + event.getFormattedMessage()
						+ (event.getThrowableProxy() == null ? "" : " (" + event.getThrowableProxy().getClassName()
								+ ": " + event.getThrowableProxy().getMessage() + ")"));
			}
		}
	};

	private ServerLog() {
	}

	/** Starts collecting the ERROR lines of every logger. */
	public static ServerLog open() {
		ServerLog log = new ServerLog();
		log.appender.setContext(root().getLoggerContext());
		log.appender.start();
		root().addAppender(log.appender);
		return log;
	}

	/** The ERROR lines logged since {@link #open}. */
	public List<String> errors() {
		return List.copyOf(errors);
	}

	@Override
	public void close() {
		root().detachAppender(appender);
		appender.stop();
	}

	private static Logger root() {
		return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
	}

}
