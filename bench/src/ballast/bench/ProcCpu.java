package ballast.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CPU time of server processes from /proc: each given process, its children (PostgreSQL's
 * backends under the postmaster) and what its exited children used (cutime, cstime). In
 * seconds; Linux's USER_HZ is 100.
 */
final class ProcCpu {

	private ProcCpu() {
	}

	static double seconds(long[] roots) {
		if (roots.length == 0) {
			return 0;
		}
		Map<Long, List<Long>> children = new HashMap<>();
		Map<Long, long[]> times = new HashMap<>();
		try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path dir : proc) {
				try {
					String stat = Files.readString(dir.resolve("stat"));
					String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
					long pid = Long.parseLong(dir.getFileName().toString());
					long parent = Long.parseLong(fields[1]);
					children.computeIfAbsent(parent, p -> new ArrayList<>()).add(pid);
					times.put(pid, new long[] { Long.parseLong(fields[11]) + Long.parseLong(fields[12]),
							Long.parseLong(fields[13]) + Long.parseLong(fields[14]) });
				}
				catch (IOException | RuntimeException ex) {
					// The process exited while being read.
				}
			}
		}
		catch (IOException ex) {
			return 0;
		}
		long ticks = 0;
		Set<Long> seen = new HashSet<>();
		List<Long> queue = new ArrayList<>();
		for (long root : roots) {
			queue.add(root);
		}
		while (!queue.isEmpty()) {
			long pid = queue.removeLast();
			if (!seen.add(pid) || !times.containsKey(pid)) {
				continue;
			}
			long[] t = times.get(pid);
			ticks += t[0] + t[1];
			queue.addAll(children.getOrDefault(pid, List.of()));
		}
		return ticks / 100.0;
	}

}
