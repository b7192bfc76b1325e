package dev.ballast.web;

import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Merge Patch (RFC 7386): what a {@code PATCH} body does to a resource's document.
 */
public final class JsonMergePatch {

	private JsonMergePatch() {
	}

	/**
	 * @param target the resource's editable fields; left unchanged
	 * @param patch the request body, which must be a JSON object
	 * @return a new document with the patch applied: members set to {@code null} are
	 * removed, objects are merged member by member, anything else replaces
	 * @throws InvalidRequestException when the patch is not an object
	 */
	public static ObjectNode apply(ObjectNode target, JsonNode patch) {
		if (patch == null || !patch.isObject()) {
			throw InvalidRequestException.of("", "a merge patch must be a JSON object");
		}
		return merge(target.deepCopy(), patch);
	}

	private static ObjectNode merge(ObjectNode target, JsonNode patch) {
		for (Map.Entry<String, JsonNode> member : patch.properties()) {
			JsonNode value = member.getValue();
			if (value.isNull()) {
				target.remove(member.getKey());
			}
			else if (value.isObject() && target.get(member.getKey()) instanceof ObjectNode nested) {
				merge(nested, value);
			}
			else {
				target.set(member.getKey(), value.deepCopy());
			}
		}
		return target;
	}

}
