package dev.ballast.instance;

import java.util.List;

/**
 * The outcome of an operator edit.
 *
 * @param view the resource after the edit
 * @param normalized JSON pointers of fields converted under the NORMALIZE policy
 */
record Edited<T>(T view, List<String> normalized) {
}
