package dev.ballast.release;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.database.Synchronizations;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ShiftShares;
import dev.ballast.registry.WritePath;
import dev.ballast.weight.ShiftWeights;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Keeps a release's shares exact while its members change: the write path asks it within
 * every set of changes that moves what a shift shares (a member held out or back in
 * rotation, a weight set by hand, a member removed or registered again). A weight set by
 * hand on a member becomes its weight before the release (what abort restores, and its
 * share's basis); then the release's current step is applied again over the weight that
 * serves ({@link ShiftWeights}), in the same changes, so no watcher ever sees a step's
 * share broken.
 * <p>
 * Which release is under way is read once per service and transaction: the service's
 * lock, which every writer takes first, keeps it from changing meanwhile but through this
 * transaction's own release calls, which tell it ({@link #changed}).
 */
@Component
class ReleaseShares implements ShiftShares {

	private final ReleaseStore store;

	private final Clock clock;

	ReleaseShares(ReleaseStore store, Clock clock, WritePath path) {
		this.store = store;
		this.clock = clock;
		path.keepShares(this);
	}

	@Override
	public boolean underWay(LockedService service) {
		return underWay(service.name().value()).isPresent();
	}

	@Override
	public Map<InstanceId, Instance> shares(LockedService service, Map<InstanceId, Instance> before,
			Map<InstanceId, Instance> after) {
		Release release = underWay(service.name().value()).orElseThrow();
		Map<String, Weight> original = new LinkedHashMap<>(release.original());
		Map<String, Instance> members = new LinkedHashMap<>();
		for (String id : concat(release.fromIds(), release.toIds())) {
			Instance now = after.get(InstanceId.of(id));
			if (now == null) {
				continue;
			}
			members.put(id, now);
			Instance was = before.get(InstanceId.of(id));
			if (was == null || !was.weight().equals(now.weight())) {
				original.put(id, now.weight());
			}
		}
		Release basis = release.sharing(original, release.totalWeight());
		Shared shared = shared(basis, members, release.percent());
		Map<InstanceId, Instance> changed = new LinkedHashMap<>();
		members.forEach((id, instance) -> {
			Weight weight = shared.weights().get(id);
			if (!weight.equals(instance.weight())) {
				changed.put(instance.id(), instance.shiftedTo(weight));
			}
		});
		if (!original.equals(release.original()) || shared.total() != release.totalWeight()) {
			Release kept = release.sharing(original, shared.total());
			store.update(kept, clock.instant());
			changed(kept);
		}
		return changed;
	}

	/**
	 * Tells this transaction's view that a release of the service was started, moved or
	 * ended by the caller.
	 */
	void changed(Release release) {
		UnderWay view = view();
		if (view != null) {
			view.releases.put(release.service(), Optional.of(release).filter(Release::underWay));
		}
	}

	/**
	 * The weights of a release's members (by id, as they stand) at {@code percent}, and
	 * the weight that serves among them, which they share.
	 */
	static Shared shared(Release release, Map<String, Instance> members, int percent) {
		List<ShiftWeights.Member> shift = new ArrayList<>();
		members.forEach((id,
				instance) -> shift.add(new ShiftWeights.Member(id, release.toIds().contains(id),
						release.original().getOrDefault(id, instance.weight()).value(), instance.weight().value(),
						!instance.heldOut())));
		Map<String, Weight> weights = ShiftWeights.at(shift, percent);
		long total = shift.stream()
			.filter(ShiftWeights.Member::serving)
			.mapToLong(member -> weights.get(member.id()).value())
			.sum();
		return new Shared(weights, total);
	}

	/** Members' weights at a step, and the weight that serves among them. */
	record Shared(Map<String, Weight> weights, long total) {
	}

	private Optional<Release> underWay(String service) {
		UnderWay view = view();
		if (view == null) {
			return store.underWay(service);
		}
		return view.releases.computeIfAbsent(service, store::underWay);
	}

	/** This transaction's view, or null outside a transaction. */
	private UnderWay view() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return null;
		}
		return Synchronizations.findOrRegister(UnderWay.class, found -> found.owner == this, () -> new UnderWay(this));
	}

	private static List<String> concat(List<String> a, List<String> b) {
		List<String> all = new ArrayList<>(a);
		all.addAll(b);
		return all;
	}

	/** This transaction's view of the releases under way, by service. */
	private static final class UnderWay implements TransactionSynchronization {

		private final ReleaseShares owner;

		private final Map<String, Optional<Release>> releases = new HashMap<>();

		UnderWay(ReleaseShares owner) {
			this.owner = owner;
		}

	}

}
