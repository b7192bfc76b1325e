package dev.ballast.registry;

import java.time.Instant;

/**
 * Told to the {@link ChangeLog} inside the transaction that changed a service's settings.
 *
 * @param service the service
 * @param revision the new service revision
 * @param settings the settings after the change
 * @param at when the change was made
 */
public record ServiceChanged(ServiceName service, long revision, SettingsView settings, Instant at) {
}
