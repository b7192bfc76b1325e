package dev.ballast.database;

import java.nio.file.Path;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The node's data directory ({@code ballast.data-dir}): embedded PostgreSQL files and the
 * generated admin token live here and are kept across restarts.
 *
 * @param dataDir the directory, relative to the working directory unless absolute
 */
@ConfigurationProperties("ballast")
public record DataDirectory(@DefaultValue("./data") Path dataDir) {

	public Path path() {
		return dataDir;
	}

}
