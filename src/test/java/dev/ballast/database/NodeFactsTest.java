package dev.ballast.database;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One row per node, two facts in it (that it probes, how far it wrote lease renewals): a
 * fact the node stops stating never takes the other with it, and the row goes with the
 * last.
 */
@RegistryTest
class NodeFactsTest {

	private static final Instant LONG_AGO = Instant.parse("2001-01-01T00:00:00Z");

	@Autowired
	NodeFacts facts;

	@Autowired
	JdbcClient jdbc;

	@Test
	void aNodeStopsOneFactAndKeepsTheOtherUntilItStopsBoth() {
		String node = Names.service("node-both");
		Instant through = Instant.now().minusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		facts.probes(node);
		facts.wrote(node, through);

		facts.stopsWriting(node);
		boolean rowAfterWriting = exists(node);
		boolean probingAfterWriting = probing(node);
		boolean positionAfterWriting = facts.positions().containsKey(node);

		facts.wrote(node, through);
		facts.stopsProbing(node);
		boolean rowAfterProbing = exists(node);
		boolean probingAfterProbing = probing(node);
		Instant positionAfterProbing = facts.positions().get(node);

		facts.stopsWriting(node);

		assertThat(rowAfterWriting).as("the row of a node that still probes").isTrue();
		assertThat(probingAfterWriting).as("it still probes").isTrue();
		assertThat(positionAfterWriting).as("its position, cleared").isFalse();
		assertThat(rowAfterProbing).as("the row of a node that still writes").isTrue();
		assertThat(probingAfterProbing).as("it no longer probes").isFalse();
		assertThat(positionAfterProbing).as("its position, kept").isEqualTo(through);
		assertThat(exists(node)).as("the row once it states nothing").isFalse();
	}

	@Test
	void aPositionNeverMovesBack() {
		String node = Names.service("node-back");
		Instant later = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		facts.wrote(node, later);
		facts.wrote(node, later.minusSeconds(5));

		Instant position = facts.positions().get(node);
		facts.stopsWriting(node);

		assertThat(position).isEqualTo(later);
	}

	/**
	 * The sweep forgets the position of a writer silent since the grace, and the
	 * membership forgets old probers: a row keeps its other fact. The running registry
	 * forgets the same old facts on its own schedule, so the nodes here are the kind each
	 * forgetting leaves or takes whoever runs it first: a live prober with an ancient
	 * position, a writer that never probed with a current one, an ancient prober.
	 */
	@Test
	void forgettingOneFactOfANodeLeavesItsOtherFact() {
		String gone = Names.service("node-gone");
		String writer = Names.service("node-writer");
		String prober = Names.service("node-prober");
		Instant current = Instant.now().plus(Duration.ofMinutes(5)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		jdbc.sql("INSERT INTO node (node, seen_at, renewals_through) VALUES (?, now(), ?)")
			.params(gone, Timestamp.from(LONG_AGO))
			.update();
		facts.wrote(writer, current);
		jdbc.sql("INSERT INTO node (node, seen_at) VALUES (?, ?)").params(prober, Timestamp.from(LONG_AGO)).update();

		facts.silentWritersThrough(Instant.now(), Instant.now().minus(Duration.ofDays(1)));
		boolean goneRow = exists(gone);
		boolean goneProbing = probing(gone);
		boolean gonePosition = facts.positions().containsKey(gone);
		facts.forgetProbersSilentFor(Duration.ofDays(1));
		boolean writerRow = exists(writer);
		Instant writerPosition = facts.positions().get(writer);
		boolean proberRow = exists(prober);
		facts.stopsProbing(gone);
		facts.stopsWriting(writer);

		assertThat(goneRow).as("the row of a forgotten writer that probes").isTrue();
		assertThat(goneProbing).as("it still probes").isTrue();
		assertThat(gonePosition).as("its position, forgotten").isFalse();
		assertThat(writerRow).as("the row of a writer that never probed").isTrue();
		assertThat(writerPosition).as("its position").isEqualTo(current);
		assertThat(proberRow).as("an ancient prober that never wrote").isFalse();
		assertThat(exists(gone)).as("the forgotten writer's row, once it stops probing").isFalse();
		assertThat(exists(writer)).as("the writer's row, once it stops writing").isFalse();
	}

	private boolean exists(String node) {
		return jdbc.sql("SELECT count(*) FROM node WHERE node = ?").param(node).query(Long.class).single() == 1;
	}

	private boolean probing(String node) {
		return facts.probers(Duration.ofMinutes(1)).stream().anyMatch(member -> member.node().equals(node));
	}

}
