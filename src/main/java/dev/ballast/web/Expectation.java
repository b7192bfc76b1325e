package dev.ballast.web;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a request field must be, for fields that no constraint annotation describes (such
 * as a weight, which is kept as raw JSON until its service's policy reads it). Used by
 * {@link RequestReader} to word refusals: {@code weight must be an integer from 0 to
 * 10000; got null}.
 */
@Target({ ElementType.FIELD, ElementType.RECORD_COMPONENT })
@Retention(RetentionPolicy.RUNTIME)
public @interface Expectation {

	/**
	 * The expectation, starting with "must", e.g.
	 * {@code must be an integer from 0 to 10000}.
	 */
	String value();

}
