package dev.ballast.client;

import java.math.BigInteger;

/**
 * A JSON number exactly as it was written, so that an integer is told from a number that
 * merely has an integral value ({@code 100} from {@code 100.0} or {@code 1e2}) and a huge
 * one is never rounded into range.
 *
 * @param text the number's text, valid JSON number syntax
 */
record JsonNumber(String text) {

	/** Whether the number was written as an integer: no fraction, no exponent. */
	boolean integral() {
		return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
	}

	/**
	 * Whether the number was written as an integer from {@code min} to {@code max}.
	 */
	boolean integerWithin(long min, long max) {
		if (!integral()) {
			return false;
		}
		BigInteger value = new BigInteger(text);
		return value.compareTo(BigInteger.valueOf(min)) >= 0 && value.compareTo(BigInteger.valueOf(max)) <= 0;
	}

	@Override
	public String toString() {
		return text;
	}

}
