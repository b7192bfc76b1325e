package dev.ballast.web;

import java.math.BigDecimal;
import java.util.List;

import dev.ballast.weight.Weight;
import io.swagger.v3.oas.models.media.IntegerSchema;
import org.springdoc.core.utils.SpringDocUtils;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How every {@link IntegerType} travels: written as its JSON integer, read only from a
 * JSON integer in its range, and described in the OpenAPI document as one integer schema
 * with that range. The {@link Weight} is one of them.
 */
@Configuration(proxyBeanMethods = false)
class IntegerTypes {

	@Bean
	IntegerType<Weight> weightType() {
		return new IntegerType<>(Weight.class, Weight.MIN, Weight.MAX, 100, Weight::of, Weight::value);
	}

	@Bean
	JsonMapperBuilderCustomizer integerTypesAsJson(List<IntegerType<?>> types) {
		SimpleModule module = new SimpleModule("ballast-integer-types");
		for (IntegerType<?> type : types) {
			add(module, type);
			SpringDocUtils.getConfig()
				.replaceWithSchema(type.type(),
						new IntegerSchema().minimum(BigDecimal.valueOf(type.min()))
							.maximum(BigDecimal.valueOf(type.max()))
							.example(type.example()));
		}
		return builder -> builder.addModule(module);
	}

	private static <T> void add(SimpleModule module, IntegerType<T> type) {
		module.addSerializer(type.type(), new ValueSerializer<>() {

			@Override
			public void serialize(T value, JsonGenerator generator, SerializationContext context) {
				generator.writeNumber(type.value().applyAsInt(value));
			}

		});
		module.addDeserializer(type.type(), new ValueDeserializer<>() {

			@Override
			public T deserialize(JsonParser parser, DeserializationContext context) {
				if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
					return type.type().cast(context.handleUnexpectedToken(type.type(), parser));
				}
				// A number beyond an int is refused before it could be read as one.
				if (parser.getNumberType() != JsonParser.NumberType.INT || !type.holds(parser.getIntValue())) {
					return type.type()
						.cast(context.handleWeirdNumberValue(type.type(), parser.getNumberValue(),
								"must be " + type.expectation()));
				}
				return type.of().apply(parser.getIntValue());
			}

		});
	}

}
