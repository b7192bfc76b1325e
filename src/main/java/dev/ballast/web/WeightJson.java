package dev.ballast.web;

import java.math.BigDecimal;

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
 * How a {@link Weight} travels: as a JSON integer from 0 to 10000, and in the OpenAPI
 * document as one integer schema with that range, so that every response type can carry
 * the typed weight and no annotation restates the range.
 */
@Configuration(proxyBeanMethods = false)
class WeightJson {

	static {
		SpringDocUtils.getConfig()
			.replaceWithSchema(Weight.class,
					new IntegerSchema().minimum(BigDecimal.valueOf(Weight.MIN))
						.maximum(BigDecimal.valueOf(Weight.MAX))
						.example(100));
	}

	@Bean
	JsonMapperBuilderCustomizer weightAsInteger() {
		SimpleModule module = new SimpleModule("ballast-weight");
		module.addSerializer(Weight.class, new ValueSerializer<>() {

			@Override
			public void serialize(Weight weight, JsonGenerator generator, SerializationContext context) {
				generator.writeNumber(weight.value());
			}

		});
		module.addDeserializer(Weight.class, new ValueDeserializer<>() {

			@Override
			public Weight deserialize(JsonParser parser, DeserializationContext context) {
				// Only what the registry itself wrote is read back (the change log); a
				// request's weight is read by WeightReader under the service's policy.
				if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
					return (Weight) context.handleUnexpectedToken(Weight.class, parser);
				}
				return Weight.of(parser.getIntValue());
			}

		});
		return builder -> builder.addModule(module);
	}

}
