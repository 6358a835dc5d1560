package io.github.jobevent.flinkharness;

import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Harness is the command line: {@code Harness SCENARIO OUTDIR} runs one scenario and writes
 * OUTDIR/{job-events/, truth.json, plan.json}; {@code Harness all OUTROOT} (or a comma-separated
 * list of scenarios) runs several in this JVM, each into OUTROOT/<scenario>/; {@code Harness
 * list} prints the scenarios; {@code Harness selftest OUTROOT} checks that the harness rejects
 * broken scenarios; {@code Harness restcheck OUTROOT} runs the scenarios that stop a TaskManager
 * and checks jobevent's dry run with {@code --flink-rest} against the live cluster
 * ({@link RestCheck}; JOBEVENT names the binary); {@code Harness watchcheck OUTROOT} runs jobevent watch
 * beside a failover scenario and checks its archive and metrics ({@link WatchCheck}). It exits 0 when every scenario passed, 1 when one failed, 2 on a usage error.
 */
public final class Harness {
    private Harness() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * MAX_TRIES bounds the runs of a scenario whose outcome the harness disturbed. A disturbed run
     * ends within seconds of its failover (the partition-fetch timeout is 10 s); on a busy 2-core
     * machine one in three runs of a "partly done" scenario can be disturbed, and once in CI five
     * runs of file-source-partly-done in a row were, so five tries were too few.
     */
    private static final int MAX_TRIES = 10;

    private static int run(String[] args) {
        Map<String, Scenario> all = Scenario.all();
        if (args.length == 1 && args[0].equals("list")) {
            all.values().forEach(s -> System.out.println(s.name + "\t" + s.description));
            return 0;
        }
        if (args.length == 2 && args[0].equals("selftest")) {
            return selfTest(Path.of(args[1]));
        }
        if (args.length == 2 && args[0].equals("restcheck")) {
            String jobevent = System.getenv("JOBEVENT");
            if (jobevent == null || jobevent.isEmpty()) {
                System.err.println("flink-harness: restcheck needs JOBEVENT=path/to/jobevent (go build ./cmd/jobevent)");
                return 2;
            }
            List<Scenario> lost = all.values().stream()
                    .filter(sc -> sc.failovers.stream().anyMatch(f -> f.loseTaskManagerOf != null)).toList();
            return runAll(lost, Path.of(args[1]), false, new RestCheck(jobevent), null);
        }
        if (args.length == 2 && args[0].equals("watchcheck")) {
            String jobevent = System.getenv("JOBEVENT");
            if (jobevent == null || jobevent.isEmpty()) {
                System.err.println("flink-harness: watchcheck needs JOBEVENT=path/to/jobevent (go build ./cmd/jobevent)");
                return 2;
            }
            return runAll(WatchCheck.SCENARIOS.stream().map(all::get).toList(), Path.of(args[1]), false, null, new WatchCheck(jobevent));
        }
        if (args.length != 2) {
            System.err.println("usage: run.sh SCENARIO|all|S1,S2,... OUTDIR   (run.sh list names the scenarios)");
            return 2;
        }
        List<Scenario> chosen = new ArrayList<>();
        boolean single = !args[0].equals("all") && !args[0].contains(",");
        for (String name : args[0].equals("all") ? all.keySet() : List.of(args[0].split(","))) {
            Scenario s = all.get(name);
            if (s == null) {
                System.err.println("flink-harness: unknown scenario " + name + " (run.sh list names them)");
                return 2;
            }
            chosen.add(s);
        }
        return runAll(chosen, Path.of(args[1]), single, null, null);
    }

    /** runAll runs the scenarios, each into out/<scenario>/ (or out itself when single). */
    private static int runAll(List<Scenario> chosen, Path out, boolean single, RestCheck restCheck, WatchCheck watch) {
        String version = flinkVersion();
        int passed = 0;
        int failed = 0;
        for (Scenario s : chosen) {
            Path dir = single ? out : out.resolve(s.name);
            long start = System.nanoTime();
            String verdict;
            int tries = 0;
            while (true) {
                tries++;
                try {
                    clean(dir);
                    new ScenarioRun(s, version, dir, restCheck).watching(watch).run();
                    passed++;
                    verdict = tries == 1 ? "ok" : "ok (try " + tries + ")";
                } catch (ScenarioRun.Disturbed d) {
                    if (tries < MAX_TRIES) {
                        System.out.printf("flink %s  %-42s again: %s%n", version, s.name, d.getMessage());
                        continue;
                    }
                    failed++;
                    verdict = "FAIL after " + tries + " tries: " + d.getMessage();
                } catch (Throwable t) {
                    failed++;
                    verdict = "FAIL: " + t;
                    t.printStackTrace();
                }
                break;
            }
            System.out.printf("flink %s  %-42s %5.1fs  %s%n", version, s.name, (System.nanoTime() - start) / 1e9, verdict);
        }
        System.out.println("flink-" + version + ": " + passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    /**
     * selfTest runs the broken scenarios of {@link Scenario#selfTests} and passes when the harness
     * rejects each of them with the expected failure: proof that its checks can fail.
     */
    private static int selfTest(Path out) {
        String version = flinkVersion();
        int passed = 0;
        int failed = 0;
        for (Map.Entry<Scenario, String> e : Scenario.selfTests().entrySet()) {
            Scenario s = e.getKey();
            String verdict;
            try {
                Path dir = out.resolve(s.name);
                clean(dir);
                new ScenarioRun(s, version, dir).run();
                verdict = "FAIL: the harness accepted it";
            } catch (ScenarioRun.HarnessFailure f) {
                verdict = f.getMessage().startsWith(e.getValue()) ? null : "FAIL: wrong rejection: " + f.getMessage();
            } catch (Throwable t) {
                verdict = "FAIL: " + t;
            }
            if (verdict == null) {
                passed++;
                verdict = "ok (rejected: " + e.getValue() + ")";
            } else {
                failed++;
            }
            System.out.printf("flink %s  %-42s %s%n", version, s.name, verdict);
        }
        System.out.println("selftest-" + version + ": " + passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    /** clean empties a scenario's output directory so that no file of an earlier run survives. */
    private static void clean(Path dir) throws IOException {
        if (Files.exists(dir)) {
            for (String name : List.of("truth.json", "plan.json", "jobevent-rest.json", "jobevent-rest.stderr")) {
                Files.deleteIfExists(dir.resolve(name));
            }
            try (var s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    String n = p.getFileName().toString();
                    if (n.startsWith("job-events") || n.equals("ha") || n.startsWith("ha.failover-")) {
                        ScenarioRun.deleteTree(p);
                    }
                }
            }
        }
        Files.createDirectories(dir);
    }

    static String flinkVersion() {
        String v = EnvironmentInformation.getVersion();
        if (v == null || v.isEmpty() || v.startsWith("<")) {
            v = System.getProperty("flink.version", "unknown");
        }
        return v;
    }
}
