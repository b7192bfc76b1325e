package dev.ballast.web;

import java.time.Instant;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes the application's JSON mapper refuse everything that is not exactly what a schema
 * says, using Jackson's own strictness switches rather than checks of our own: no
 * coercion between strings, numbers and booleans, no floats into integers, no unknown
 * fields, no duplicate keys, nothing after the document. Floats are read as
 * {@link java.math.BigDecimal} so that a value such as {@code 1e400} keeps its magnitude
 * instead of becoming infinity.
 *
 * <p>
 * Every timestamp is read by {@link Timestamps}, which bounds it to what the registry can
 * store.
 *
 * <p>
 * Jackson cannot refuse an explicit {@code null} without also refusing an absent optional
 * field of a record, so {@link RequestReader} refuses explicit nulls itself.
 */
@Configuration(proxyBeanMethods = false)
class StrictJson {

	@Bean
	JsonMapperBuilderCustomizer strictJsonMapper() {
		return builder -> builder
			.addModule(new SimpleModule("timestamps").addDeserializer(Instant.class, Timestamps.DESERIALIZER))
			.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
			.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
					DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
					DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
			.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
			.withCoercionConfigDefaults(
					config -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
						.setAcceptBlankAsEmpty(false));
	}

}
