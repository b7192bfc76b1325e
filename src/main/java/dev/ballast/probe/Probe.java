package dev.ballast.probe;

import dev.ballast.instance.CheckDefinition;

/**
 * One kind of probe. {@link #run} blocks its caller (a virtual thread) at most the
 * check's timeout and never throws: every failure is a critical outcome that says what
 * went wrong.
 */
interface Probe {

	ProbeOutcome run(CheckDefinition check);

}
