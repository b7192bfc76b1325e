package dev.ballast.client;

/**
 * The registry did not do what was asked: it refused (the status and the problem's detail
 * say why), or it could not be reached ({@link #status()} 0).
 */
public final class RegistryException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final int status;

	RegistryException(int status, String message, Throwable cause) {
		super(message, cause);
		this.status = status;
	}

	/**
	 * The HTTP status the registry answered, such as 401 (no or unknown token), 403 (the
	 * token lacks the role or the service), 409 (a guard), 503; 0 when it did not answer.
	 */
	public int status() {
		return status;
	}

	/**
	 * Whether the registry refused the token: no token, an unknown one, or too few
	 * rights.
	 */
	public boolean tokenRefused() {
		return status == 401 || status == 403;
	}

	/** Whether asking again later may succeed: no answer, 429 or a 5xx. */
	public boolean retryable() {
		return status == 0 || status == 429 || status >= 500;
	}

}
