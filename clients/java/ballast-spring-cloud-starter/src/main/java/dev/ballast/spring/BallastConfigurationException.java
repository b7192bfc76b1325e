package dev.ballast.spring;

/**
 * A setting the application cannot start with, naming the property to fix; Spring Boot
 * prints it as the reason the application failed to start
 * ({@link BallastFailureAnalyzer}).
 */
public class BallastConfigurationException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String property;

	BallastConfigurationException(String property, String problem, Throwable cause) {
		super(property + ": " + problem, cause);
		this.property = property;
	}

	/** The property to set or correct, such as {@code ballast.client.token}. */
	public String property() {
		return property;
	}

}
