package dev.ballast.consul;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ballast.weight.Weight;

/**
 * The JSON shapes of Consul's answers, field for field as Consul 1.x writes them and its
 * clients read them (PascalCase). Weights are {@link Weight}s, written as JSON integers.
 */
final class ConsulShapes {

	private ConsulShapes() {
	}

	/** One element of {@code GET /v1/health/service/{service}}. */
	record HealthEntry(@JsonProperty("Node") Node node, @JsonProperty("Service") Service service,
			@JsonProperty("Checks") List<Check> checks) {
	}

	/** The node an instance is listed on: Ballast itself, having no agents. */
	record Node(@JsonProperty("ID") String id, @JsonProperty("Node") String node,
			@JsonProperty("Address") String address, @JsonProperty("Datacenter") String datacenter,
			@JsonProperty("TaggedAddresses") Map<String, String> taggedAddresses,
			@JsonProperty("Meta") Map<String, String> meta, @JsonProperty("CreateIndex") long createIndex,
			@JsonProperty("ModifyIndex") long modifyIndex) {
	}

	/** A routable instance as a Consul service entry. */
	record Service(@JsonProperty("ID") String id, @JsonProperty("Service") String service,
			@JsonProperty("Tags") List<String> tags, @JsonProperty("Address") String address,
			@JsonProperty("Meta") Map<String, String> meta, @JsonProperty("Port") int port,
			@JsonProperty("Weights") Weights weights, @JsonProperty("EnableTagOverride") boolean enableTagOverride,
			@JsonProperty("CreateIndex") long createIndex, @JsonProperty("ModifyIndex") long modifyIndex) {
	}

	/**
	 * A routable instance as an element of {@code GET /v1/agent/services} and as
	 * {@code GET /v1/agent/service/{id}}: Ballast is the one agent every instance is
	 * registered with.
	 */
	record AgentService(@JsonProperty("ID") String id, @JsonProperty("Service") String service,
			@JsonProperty("Tags") List<String> tags, @JsonProperty("Meta") Map<String, String> meta,
			@JsonProperty("Port") int port, @JsonProperty("Address") String address,
			@JsonProperty("Weights") Weights weights, @JsonProperty("EnableTagOverride") boolean enableTagOverride,
			@JsonProperty("Datacenter") String datacenter, @JsonProperty("CreateIndex") long createIndex,
			@JsonProperty("ModifyIndex") long modifyIndex) {
	}

	/** Both are the effective weight: Ballast has no separate weight for a warning. */
	record Weights(@JsonProperty("Passing") Weight passing, @JsonProperty("Warning") Weight warning) {
	}

	/** An instance's TTL check, which is its lease. */
	record Check(@JsonProperty("Node") String node, @JsonProperty("CheckID") String checkId,
			@JsonProperty("Name") String name, @JsonProperty("Status") String status,
			@JsonProperty("Notes") String notes, @JsonProperty("Output") String output,
			@JsonProperty("ServiceID") String serviceId, @JsonProperty("ServiceName") String serviceName,
			@JsonProperty("ServiceTags") List<String> serviceTags, @JsonProperty("Type") String type,
			@JsonProperty("CreateIndex") long createIndex, @JsonProperty("ModifyIndex") long modifyIndex) {
	}

	/** One element of {@code GET /v1/catalog/service/{service}}. */
	record CatalogEntry(@JsonProperty("ID") String id, @JsonProperty("Node") String node,
			@JsonProperty("Address") String address, @JsonProperty("Datacenter") String datacenter,
			@JsonProperty("TaggedAddresses") Map<String, String> taggedAddresses,
			@JsonProperty("NodeMeta") Map<String, String> nodeMeta, @JsonProperty("ServiceKind") String serviceKind,
			@JsonProperty("ServiceID") String serviceId, @JsonProperty("ServiceName") String serviceName,
			@JsonProperty("ServiceTags") List<String> serviceTags,
			@JsonProperty("ServiceAddress") String serviceAddress,
			@JsonProperty("ServiceWeights") Weights serviceWeights,
			@JsonProperty("ServiceMeta") Map<String, String> serviceMeta, @JsonProperty("ServicePort") int servicePort,
			@JsonProperty("ServiceEnableTagOverride") boolean serviceEnableTagOverride,
			@JsonProperty("CreateIndex") long createIndex, @JsonProperty("ModifyIndex") long modifyIndex) {
	}

	/** {@code GET /v1/agent/self}, the parts clients read. */
	record AgentSelf(@JsonProperty("Config") Config config, @JsonProperty("Member") Member member,
			@JsonProperty("Meta") Map<String, String> meta) {
	}

	record Config(@JsonProperty("Datacenter") String datacenter, @JsonProperty("NodeName") String nodeName,
			@JsonProperty("NodeID") String nodeId, @JsonProperty("Server") boolean server,
			@JsonProperty("Revision") String revision, @JsonProperty("Version") String version) {
	}

	record Member(@JsonProperty("Name") String name, @JsonProperty("Addr") String addr, @JsonProperty("Port") int port,
			@JsonProperty("Tags") Map<String, String> tags, @JsonProperty("Status") int status) {
	}

}
