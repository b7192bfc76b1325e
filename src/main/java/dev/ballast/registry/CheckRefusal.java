package dev.ballast.registry;

/**
 * A check definition that cannot be run as sent. {@link #field()} names the part by its
 * meaning ({@code interval}, {@code http}); each entrance names it in its own spelling
 * ({@code /checks/0/intervalSeconds}, {@code Check.Interval}).
 */
public final class CheckRefusal extends RuntimeException {

	private final String field;

	private final int position;

	public CheckRefusal(String field, String detail) {
		this(field, detail, -1);
	}

	private CheckRefusal(String field, String detail, int position) {
		super(detail, null, false, false);
		this.field = field;
		this.position = position;
	}

	/** This refusal, of the check at {@code index} among those sent. */
	public CheckRefusal at(int index) {
		return new CheckRefusal(field, getMessage(), index);
	}

	/** Which of the checks sent it is about, from 0; -1 when about all of them. */
	public int position() {
		return position;
	}

	/**
	 * One of {@code http}, {@code tcp}, {@code grpc}, {@code method}, {@code headers},
	 * {@code interval}, {@code timeout}, {@code failuresBeforeCritical},
	 * {@code successBeforePassing}, {@code deregisterAfter}, {@code checks}.
	 */
	public String field() {
		return field;
	}

}
