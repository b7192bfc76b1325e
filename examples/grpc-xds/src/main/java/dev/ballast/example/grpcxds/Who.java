package dev.ballast.example.grpcxds;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import io.grpc.MethodDescriptor;

/**
 * The one method of the example, {@code ballast.example.Who/Name}: it answers the name of
 * the backend that served the call. Strings travel as UTF-8, so the example needs no
 * protobuf compiler.
 */
final class Who {

	static final MethodDescriptor<String, String> NAME = MethodDescriptor.<String, String>newBuilder()
		.setType(MethodDescriptor.MethodType.UNARY)
		.setFullMethodName("ballast.example.Who/Name")
		.setRequestMarshaller(Utf8.INSTANCE)
		.setResponseMarshaller(Utf8.INSTANCE)
		.build();

	private Who() {
	}

	enum Utf8 implements MethodDescriptor.Marshaller<String> {

		INSTANCE;

		@Override
		public InputStream stream(String value) {
			return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
		}

		@Override
		public String parse(InputStream stream) {
			try {
				return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
