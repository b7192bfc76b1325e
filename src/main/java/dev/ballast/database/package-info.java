/**
 * Where the registry keeps its state: with no {@code spring.datasource.url} configured, a
 * real PostgreSQL server is started from the embedded binaries, with its files under
 * {@code ballast.data-dir} so that they survive restarts. With a datasource configured,
 * this module does nothing and Spring Boot connects to that server instead.
 */
package dev.ballast.database;
