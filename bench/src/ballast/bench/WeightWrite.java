package ballast.bench;

/** One weight change; written by the writer thread, read after it finished. */
final class WeightWrite {

	boolean measured;

	long scheduledNanos;

	long sentNanos;

	long ackedNanos;

	long revision = -1;

	String failure;

}
