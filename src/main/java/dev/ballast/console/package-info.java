/**
 * The operator console: a static page served at {@code /console/} (and {@code /}
 * redirects there), written as plain ES modules under {@code static/console} so nothing
 * is built or fetched at run time. The page holds no data of its own: it calls the
 * registry's public API with the operator's token, like any other client.
 */
@ApplicationModule(allowedDependencies = {})
package dev.ballast.console;

import org.springframework.modulith.ApplicationModule;
