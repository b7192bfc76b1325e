package dev.ballast.watch;

import javax.sql.DataSource;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.ballast.registry.Snapshots;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The thread that delivers events to every watcher never waits for the database: the
 * classes it runs reach no way to read it. Reads belong to {@link ChangeFollower}.
 */
class DeliveringThreadTest {

	@Test
	void theDeliveringSideHasNoWayToReadTheDatabase() {
		JavaClasses watch = new ClassFileImporter().importPackages("dev.ballast.watch");
		noClasses().that()
			.belongToAnyOf(Streams.class, StreamWriters.class, EventSender.class, StreamUpkeep.class, ServiceFeed.class,
					Watcher.class, Waiter.class, AppliedServices.class)
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(ChangeReader.class, FeedConnections.class, Snapshots.class, JdbcTemplate.class,
					JdbcClient.class, DataSource.class, ChangeFollower.class)
			.check(watch);
	}

}
