package dev.ballast.weight;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The guard on the actions of operators and registrants. In the service and in each zone
 * (a scope), the unroutable capacity is the scope's <em>base</em> less what still serves
 * in it, and an action may raise it only within {@link MaxUnroutable}. What an instance
 * serves is its effective weight, or nothing while an action or an ejection holds it out:
 * so an instance warming up at 10 of its 100 leaves 90 unroutable until its ramp gives
 * them back, the way a PodDisruptionBudget counts a pod only once it is ready.
 * <p>
 * The base is the scope's capacity (the sum of its instances' {@link NominalWeight}s) at
 * its highest within a window: a capacity that left the scope (a weight lowered, an
 * instance moved to another zone or deregistered) is remembered as a {@link CapacityPeak}
 * until the window ends. So the guarded actions cannot lower the base they are counted
 * against: lowering a weight from 100 to 1 takes 99 of it away (not nothing), moving an
 * instance out of a zone takes its capacity out of that zone, and a sequence of small
 * steps adds up to what it takes. A replacement that brings the capacity back lifts the
 * scope to its peak again, so a rolling restart under new ids leaves nothing unroutable.
 * <p>
 * A traffic shift is a scope of its own ({@link #shift}): the share of the moved load
 * that the receiving group cannot carry counts as unroutable. Checked in whole weight
 * units, so rounding never lets an action through that the percentage forbids.
 */
public final class UnroutableBudget {

	/** The name of the service-wide scope. */
	public static final String SERVICE = "service";

	private UnroutableBudget() {
	}

	/**
	 * The scopes of a change from {@code before} to {@code after}: the service, then one
	 * per zone in name order (every zone that has members before or after, or a live
	 * peak).
	 * @param before the service's instances before the change
	 * @param after its instances after the change
	 * @param peaks the service's capacity peaks (those not live at {@code now} are
	 * ignored)
	 * @param now the change's time
	 */
	public static List<Scope> scopes(Collection<Member> before, Collection<Member> after,
			Collection<CapacityPeak> peaks, Instant now) {
		List<CapacityPeak> live = peaks.stream().filter(peak -> peak.liveAt(now)).toList();
		TreeSet<String> zones = new TreeSet<>();
		before.stream().map(Member::zone).filter(Objects::nonNull).forEach(zones::add);
		after.stream().map(Member::zone).filter(Objects::nonNull).forEach(zones::add);
		live.stream()
			.map(CapacityPeak::scope)
			.filter(scope -> !scope.equals(SERVICE))
			.forEach(scope -> zones.add(scope.substring("zone ".length())));
		List<Scope> scopes = new ArrayList<>();
		scopes.add(scope(SERVICE, member -> true, before, after, live, false));
		for (String zone : zones) {
			scopes.add(scope(zoneScope(zone), member -> zone.equals(member.zone()), before, after, live, false));
		}
		return scopes;
	}

	/**
	 * The scopes of a change that moves capacity between instances rather than taking it
	 * away (a traffic shift's step, promote or abort): in each, the unroutable capacity
	 * is what the instances held out carry (their weight less what they serve), counted
	 * against the capacity the scope has after the move. So a move may shift load from
	 * one zone to another, but not onto instances that cannot serve it: an abort that
	 * gives back 100 each to four instances in maintenance takes those 400 out of
	 * rotation.
	 */
	public static List<Scope> moved(Collection<Member> before, Collection<Member> after) {
		TreeSet<String> zones = new TreeSet<>();
		before.stream().map(Member::zone).filter(Objects::nonNull).forEach(zones::add);
		after.stream().map(Member::zone).filter(Objects::nonNull).forEach(zones::add);
		List<Scope> scopes = new ArrayList<>();
		scopes.add(scope(SERVICE, member -> true, before, after, List.of(), true));
		for (String zone : zones) {
			scopes.add(scope(zoneScope(zone), member -> zone.equals(member.zone()), before, after, List.of(), true));
		}
		return scopes;
	}

	/** The scope name of a zone. */
	public static String zoneScope(String zone) {
		return "zone " + zone;
	}

	/**
	 * The first scope, in the order given, whose unroutable capacity the action would
	 * raise past {@code limit}.
	 */
	public static Optional<Breach> check(List<Scope> scopes, MaxUnroutable limit) {
		Objects.requireNonNull(limit, "limit");
		return scopes.stream().map(scope -> scope.breach(limit)).flatMap(Optional::stream).findFirst();
	}

	/**
	 * The peaks a change from {@code before} to {@code after} leaves: one for each scope
	 * whose capacity it lowers, at the capacity it had, counting until {@code until}.
	 */
	public static List<CapacityPeak> peaks(Collection<Member> before, Collection<Member> after, Instant until,
			String cause) {
		List<CapacityPeak> peaks = new ArrayList<>();
		Map<String, long[]> capacities = new HashMap<>();
		before.forEach(member -> add(capacities, member, 0));
		after.forEach(member -> add(capacities, member, 1));
		capacities.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.filter(entry -> entry.getValue()[1] < entry.getValue()[0])
			.forEach(entry -> peaks.add(new CapacityPeak(entry.getKey(), entry.getValue()[0], until, cause)));
		return peaks;
	}

	private static void add(Map<String, long[]> capacities, Member member, int side) {
		capacities.computeIfAbsent(SERVICE, key -> new long[2])[side] += member.weight();
		if (member.zone() != null) {
			capacities.computeIfAbsent(zoneScope(member.zone()), key -> new long[2])[side] += member.weight();
		}
	}

	private static Scope scope(String name, Predicate<Member> in, Collection<Member> before, Collection<Member> after,
			List<CapacityPeak> live, boolean moved) {
		List<Member> was = before.stream().filter(in).toList();
		List<Member> is = after.stream().filter(in).toList();
		List<CapacityPeak> departures = live.stream().filter(peak -> peak.scope().equals(name)).toList();
		long peak = departures.stream().mapToLong(CapacityPeak::capacity).max().orElse(0);
		long capacityBefore = capacity(was);
		long baseBefore = Math.max(capacityBefore, peak);
		// The capacity in effect until now counts too: it is the peak this change leaves.
		// A move leaves none: the capacity went to other instances.
		long baseAfter = moved ? capacity(is) : Math.max(Math.max(capacity(is), capacityBefore), peak);
		long unroutableBefore = baseBefore - serving(was);
		long unroutableAfter = baseAfter - serving(is);
		Map<String, Long> largest = new HashMap<>();
		was.forEach(member -> largest.merge(member.id(), (long) member.weight(), Math::max));
		is.forEach(member -> largest.merge(member.id(), (long) member.weight(), Math::max));
		List<String> holders = was.stream().filter(Member::unroutable).map(Member::id).toList();
		List<String> holdings = new ArrayList<>();
		was.stream().filter(Member::unroutable).forEach(member -> holdings.add(member.describe()));
		departures.stream()
			.filter(departure -> departure.capacity() > capacityBefore)
			.forEach(departure -> holdings.add("capacity %d that left, counted until %s (%s)"
				.formatted(departure.capacity() - capacityBefore, departure.until(), departure.cause())));
		return new Scope(name, baseAfter, unroutableBefore, unroutableAfter, holders, holdings, out(was), out(is),
				largest.values().stream().sorted(Comparator.reverseOrder()).toList());
	}

	/**
	 * The instances that do not serve all their capacity: held out, or not yet warmed up.
	 * One at weight 0 takes nothing.
	 */
	private static int out(List<Member> members) {
		return (int) members.stream().filter(Member::unroutable).count();
	}

	private static long capacity(List<Member> members) {
		return members.stream().mapToLong(Member::weight).sum();
	}

	private static long serving(List<Member> members) {
		return members.stream().mapToLong(Member::serving).sum();
	}

	/**
	 * A traffic shift's scope. The {@code from} group's nominal weight is the load being
	 * moved; at {@code percent} the {@code to} group must carry that share of it with the
	 * nominal weight of its members that can take traffic. What it cannot carry counts as
	 * unroutable: going to 100% with a {@code to} group of half the capacity makes half
	 * the load unroutable. It counts no instances, so only a percent limit admits it.
	 * @param name the scope's name, e.g. {@code release 7}
	 * @param fromNominal the from group's nominal weight before the shift
	 * @param toCapable the nominal weight of the to group's members that can take traffic
	 * @param percentBefore the share shifted now, 0 to 100
	 * @param percentAfter the share the step would shift, 0 to 100
	 * @param holders the to group's members that cannot take traffic
	 */
	public static Scope shift(String name, long fromNominal, long toCapable, int percentBefore, int percentAfter,
			List<String> holders) {
		return new Scope(name, fromNominal, uncovered(fromNominal, toCapable, percentBefore),
				uncovered(fromNominal, toCapable, percentAfter), holders, holders, 0, 0, List.of());
	}

	/** The moved load the to group cannot carry, rounded up against the action. */
	private static long uncovered(long fromNominal, long toCapable, int percent) {
		if (percent < 0 || percent > 100) {
			throw new IllegalArgumentException("percent must be from 0 to 100; got " + percent);
		}
		long moved = Math.ceilDiv(Math.multiplyExact(fromNominal, percent), 100);
		return Math.max(0, moved - toCapable);
	}

	private static BigDecimal percent(long part, long whole) {
		if (whole == 0) {
			return BigDecimal.ZERO;
		}
		return BigDecimal.valueOf(part * 100).divide(BigDecimal.valueOf(whole), 1, RoundingMode.HALF_UP);
	}

	/**
	 * An instance as the guard sees it.
	 *
	 * @param id its id
	 * @param zone its zone, or null
	 * @param weight its capacity ({@link NominalWeight})
	 * @param serving what of it serves now: 0 while an operator action or an ejection
	 * keeps it out, else its effective weight (less than its capacity while it warms up)
	 * @param holding why it does not serve all of it and until when, for refusals (e.g.
	 * {@code draining}), or null
	 */
	public record Member(String id, String zone, int weight, int serving, String holding) {

		public Member {
			Objects.requireNonNull(id, "id");
			if (weight < 0) {
				throw new IllegalArgumentException("weight must not be negative; got " + weight);
			}
			if (serving < 0 || serving > weight) {
				throw new IllegalArgumentException(
						"serving must be from 0 to the weight %d; got %d".formatted(weight, serving));
			}
		}

		/** One that serves all its capacity or, {@code unroutable}, none of it. */
		public Member(String id, String zone, int weight, boolean unroutable, String holding) {
			this(id, zone, weight, unroutable ? 0 : weight, holding);
		}

		public Member(String id, String zone, int weight, boolean unroutable) {
			this(id, zone, weight, unroutable, null);
		}

		/** Whether part of its capacity does not serve. */
		public boolean unroutable() {
			return serving < weight;
		}

		String describe() {
			return holding == null ? id : id + " (" + holding + ")";
		}

	}

	/**
	 * One scope's figures before and after an action.
	 *
	 * @param name {@code service}, {@code zone <name>} or a shift's name
	 * @param nominal the scope's base after the action
	 * @param before the capacity unroutable now
	 * @param after the capacity unroutable after the action
	 * @param holders the instances that hold the budget now
	 * @param holdings what holds the budget now, in words: the instances out (why, until
	 * when) and capacity that left within the window
	 * @param outBefore the instances held out now
	 * @param outAfter the instances held out after the action
	 * @param largest the members' capacities, largest first
	 */
	public record Scope(String name, long nominal, long before, long after, List<String> holders, List<String> holdings,
			int outBefore, int outAfter, List<Long> largest) {

		public Scope {
			Objects.requireNonNull(name, "name");
			holders = List.copyOf(holders);
			holdings = List.copyOf(holdings);
			largest = List.copyOf(largest);
			if (nominal < 0 || before < 0 || after < 0) {
				throw new IllegalArgumentException("weights must not be negative; got nominal %d, before %d, after %d"
					.formatted(nominal, before, after));
			}
		}

		/** An action that takes nothing more away always passes, whatever stands now. */
		Optional<Breach> breach(MaxUnroutable limit) {
			if ((after <= before && outAfter <= outBefore) || limit.admits(nominal, after, outAfter, largest)) {
				return Optional.empty();
			}
			return Optional.of(new Breach(name, limit, percent(before, nominal), percent(after, nominal), nominal,
					before, after, holders, holdings));
		}

	}

	/**
	 * A limit an action would break.
	 *
	 * @param scope {@code service}, {@code zone <name>} or a shift's name
	 * @param limit the limit
	 * @param currentPercent the share unroutable now
	 * @param resultingPercent the share unroutable after the action
	 * @param nominalWeight the scope's base
	 * @param unroutableWeight the capacity unroutable now
	 * @param resultingWeight the capacity that would be unroutable
	 * @param holders the instances that hold the budget now
	 * @param holdings what holds the budget now, in words
	 */
	public record Breach(String scope, MaxUnroutable limit, BigDecimal currentPercent, BigDecimal resultingPercent,
			long nominalWeight, long unroutableWeight, long resultingWeight, List<String> holders,
			List<String> holdings) {
	}

}
