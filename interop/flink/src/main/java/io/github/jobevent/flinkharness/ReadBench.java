package io.github.jobevent.flinkharness;

import org.apache.flink.runtime.jobmaster.event.FileSystemJobEventStore;
import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * ReadBench times Flink's own reader of a job-events directory: {@code ReadBench DIR RUNS [WARMUPS]}
 * builds a {@link FileSystemJobEventStore} over DIR (the reader a recovering JobMaster replays
 * with), starts it, calls {@code readEvent} until it returns null, counting the events, and stops it
 * with {@code stop(false)}, which keeps the files. WARMUPS (2 unless given) untimed runs come
 * first, for the JIT; then RUNS timed runs, each printing its wall time (System.nanoTime), the CPU
 * time of the whole JVM process over the run (every thread: the reader's, GC and JIT) and the
 * events read. The last line, {@code best wall X s cpu Y s records N}, gives the fastest run's wall
 * time and the least CPU time of any run, as bench/flinklog prints them for jobevent's reader.
 * A run that reads a different count, throws, or leaves the directory changed is fatal (exit 1).
 * interop/flink/readbench.sh runs it.
 */
public final class ReadBench {
    private ReadBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: ReadBench DIR RUNS [WARMUPS]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]).toAbsolutePath();
        int runs = Integer.parseInt(args[1]);
        int warmups = args.length == 3 ? Integer.parseInt(args[2]) : 2;
        if (runs < 1 || warmups < 0) {
            System.err.println("ReadBench: RUNS must be at least 1, WARMUPS at least 0");
            System.exit(2);
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, Long> files = listing(dir);
        System.out.println("Flink " + EnvironmentInformation.getVersion() + " FileSystemJobEventStore start, readEvent to null, stop(false) over "
                + dir + " (" + files.size() + " files, " + files.values().stream().mapToLong(Long::longValue).sum() + " bytes), "
                + warmups + " untimed warm-up runs (JIT), then " + runs + " runs, " + Runtime.getRuntime().availableProcessors()
                + " processors, max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        long count = -1;
        for (int i = 1; i <= warmups; i++) {
            long t0 = System.nanoTime();
            long n = EventsDir.readWithFlink(dir);
            unchanged(dir, files);
            System.out.printf("warm-up %d wall %.4f s records %d (untimed)%n", i, (System.nanoTime() - t0) / 1e9, n);
            count = check(count, n, "warm-up " + i);
        }
        long bestWall = Long.MAX_VALUE;
        long bestCpu = Long.MAX_VALUE;
        for (int i = 1; i <= runs; i++) {
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long n = EventsDir.readWithFlink(dir);
            long wall = System.nanoTime() - t0;
            long cpu = os.getProcessCpuTime() - cpu0;
            unchanged(dir, files);
            System.out.printf("run %d wall %.4f s cpu %.4f s records %d%n", i, wall / 1e9, cpu / 1e9, n);
            count = check(count, n, "run " + i);
            bestWall = Math.min(bestWall, wall);
            bestCpu = Math.min(bestCpu, cpu);
        }
        System.out.printf("best wall %.4f s cpu %.4f s records %d%n", bestWall / 1e9, bestCpu / 1e9, count);
    }

    /** unchanged exits 1 unless dir holds the files it held before the runs, of the same sizes. */
    private static void unchanged(Path dir, Map<String, Long> files) throws IOException {
        Map<String, Long> after = listing(dir);
        if (!after.equals(files)) {
            System.err.println("ReadBench: the directory changed while Flink read it: " + files + " before, " + after + " after");
            System.exit(1);
        }
    }

    private static long check(long count, long n, String what) {
        if (count >= 0 && n != count) {
            System.err.println("ReadBench: " + what + " read " + n + " events, the first run " + count);
            System.exit(1);
        }
        return n;
    }

    /** listing returns the names and sizes of the files in dir. */
    private static Map<String, Long> listing(Path dir) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                m.put(p.getFileName().toString(), Files.size(p));
            }
        }
        return m;
    }
}
