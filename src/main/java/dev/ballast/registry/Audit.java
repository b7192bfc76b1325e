package dev.ballast.registry;

import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

import dev.ballast.audit.AuditEntry;

/**
 * What a set of changes leaves in the audit trail, given with the changes
 * ({@link Changes#commit(Audit)}), so that no write is committed without saying what it
 * records, or why it records nothing. The entries are made from what was stored (the
 * after-view carries the new revision) right after it is stored, in the write's
 * transaction, each marked with the caller's force and with whether it overrode the
 * guard.
 */
public final class Audit {

	private final BiConsumer<Committed, Trail> entries;

	private final String unaudited;

	private Audit(BiConsumer<Committed, Trail> entries, String unaudited) {
		this.entries = entries;
		this.unaudited = unaudited;
	}

	/** Records what a caller did: one entry, from what was stored. */
	public static Audit of(Function<Committed, AuditEntry> entry) {
		Objects.requireNonNull(entry, "entry");
		return new Audit((committed, trail) -> trail.caller(entry.apply(committed)), null);
	}

	/** Records what the registry did by itself: one entry, from what was stored. */
	public static Audit system(Function<Committed, AuditEntry> entry) {
		Objects.requireNonNull(entry, "entry");
		return new Audit((committed, trail) -> trail.system(entry.apply(committed)), null);
	}

	/**
	 * Records entries that depend on what was stored: several, the caller's or the
	 * registry's own, or none when what was stored says there is nothing to record.
	 */
	public static Audit entries(BiConsumer<Committed, Trail> entries) {
		return new Audit(Objects.requireNonNull(entries, "entries"), null);
	}

	/**
	 * Records nothing, for a write the design leaves unaudited, saying why (a step of an
	 * action audited as a whole, say).
	 */
	public static Audit none(String why) {
		if (why == null || why.isBlank()) {
			throw new IllegalArgumentException("an unaudited write says why");
		}
		return new Audit((committed, trail) -> {
		}, why);
	}

	void record(Committed committed, Trail trail) {
		entries.accept(committed, trail);
	}

	@Override
	public String toString() {
		return unaudited == null ? "audited" : "unaudited: " + unaudited;
	}

	/** Where a write's entries go. */
	public interface Trail {

		/** Records what the caller did. */
		void caller(AuditEntry entry);

		/** Records what the registry did by itself. */
		void system(AuditEntry entry);

	}

}
