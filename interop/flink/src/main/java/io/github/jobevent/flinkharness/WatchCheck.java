package io.github.jobevent.flinkharness;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.rest.util.RestMapperUtils;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * WatchCheck runs {@code jobevent watch} (a binary built from this repository, JOBEVENT) beside a
 * scenario's MiniCluster, from before the submission to after the job's end: on the cluster's HA
 * storage directory, with its REST URL (both on loopback), archiving into OUTDIR/watch/. It then
 * checks what the design promises of watch on real Flink:
 * <ul>
 *   <li>before each failover, /metrics shows a non-zero {@code jobevent_exposure_bytes} for the
 *       job (the scrape is kept as OUTDIR/watch-metrics-N.txt); a run whose failover reran no
 *       finished subtask (the machine's load can change the order of Flink's records, and so
 *       what the failover reruns) has no exposure to show and is run again
 *       ({@link ScenarioRun.Disturbed});</li>
 *   <li>after Flink deleted the job's directory, the archive is completed (ended.json) and its
 *       job-events hold every file of the copy the harness took at the (last) failover, byte for
 *       byte; the files after them are the new JobMaster's;</li>
 *   <li>{@code jobevent replay ARCHIVE --dry-run --format json --at SEQ}, SEQ the failover point
 *       (the last seq of the dry run on the copy; no other flag: the plan is in the archive),
 *       equals the dry run on the copy byte for byte and equals what Flink did, subtask by
 *       subtask; with no flag at all it plans at the archive's newest event, and equals the
 *       copy's when the archive holds nothing of the new JobMaster;</li>
 *   <li>watch stops with exit status 0 on SIGTERM.</li>
 * </ul>
 * OUTDIR/watch.log holds watch's own log lines.
 */
final class WatchCheck {
    /** SCENARIOS are the runs watchcheck makes: each has finished subtasks a failover reruns. */
    static final List<String> SCENARIOS = List.of("min-pause-released-producer");

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final String jobevent;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Process proc;
    private String metricsUrl;
    private Path archive;

    WatchCheck(String jobevent) {
        this.jobevent = jobevent;
    }

    /** start starts watch on the HA storage directory and the REST URL; out is the scenario's OUTDIR. */
    void start(Path storage, String restUrl, Path out) throws Exception {
        exposed = false;
        archive = out.resolve("watch");
        ScenarioRun.deleteTree(archive);
        Files.createDirectories(archive);
        Files.createDirectories(storage);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String listen = "127.0.0.1:" + port;
        metricsUrl = "http://" + listen + "/metrics";
        proc = new ProcessBuilder(jobevent, "watch", storage.toString(), "--archive", archive.toString(),
                "--listen", listen, "--interval", "500ms", "--flink-rest", restUrl)
                .redirectErrorStream(true).redirectOutput(out.resolve("watch.log").toFile()).start();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                scrape();
                return;
            } catch (IOException e) {
                if (!proc.isAlive()) {
                    throw new ScenarioRun.HarnessFailure("watch: exited " + proc.exitValue() + " at start: " + lastLine(out));
                }
                if (System.nanoTime() > deadline) {
                    throw new ScenarioRun.HarnessFailure("watch: no /metrics on " + listen + " after " + WAIT.toSeconds() + "s");
                }
                Thread.sleep(100);
            }
        }
    }

    /** exposed is whether a scrape before a failover showed a non-zero exposure for the job. */
    private boolean exposed;

    /**
     * beforeFailover waits, at failover k's point and before the cut, until /metrics shows a
     * non-zero exposure for the job, or until watch's count of the job's events has not changed
     * for 3 s (Flink flushes its records every second), and keeps that scrape. afterJob judges
     * it, once Flink's truth says whether finished work was rerun.
     */
    void beforeFailover(JobID id, int k, Path out) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String text = "";
        String events = null;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            text = scrape();
            if (exposure(text, id.toString()) > 0) {
                exposed = true;
                break;
            }
            String now = metric(text, "jobevent_events{", id.toString());
            if (now == null || !now.equals(events)) {
                events = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > 3_000_000_000L) {
                break;
            }
            Thread.sleep(250);
        }
        Files.writeString(out.resolve("watch-metrics-" + (k + 1) + ".txt"), text, StandardCharsets.UTF_8);
    }

    /**
     * afterJob runs the checks once the job has ended: events is Flink's job-events directory,
     * copy the harness's copy of it at the last failover, truth what Flink did.
     */
    @SuppressWarnings("unchecked")
    void afterJob(JobID id, Path events, Path copy, Map<String, Object> truth, Path out) throws Exception {
        Path arch = archive.resolve(ScenarioRun.CLUSTER_ID).resolve(id.toString());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (Files.exists(events) || !Files.exists(arch.resolve("ended.json"))) {
            if (System.nanoTime() > deadline) {
                throw new ScenarioRun.HarnessFailure("watch: " + (Files.exists(events) ? "Flink kept " + events
                        : "the archive was not completed (no ended.json)") + " " + WAIT.toSeconds() + "s after the job's end");
            }
            Thread.sleep(250);
        }
        stop(out);

        boolean rerunFinished = ((List<Map<String, Object>>) truth.get("subtasks")).stream()
                .anyMatch(st -> "FINISHED".equals(st.get("state_at_failover")) && (Boolean) st.get("ran_again"));
        if (!exposed && rerunFinished) {
            throw new ScenarioRun.HarnessFailure("watch: Flink reran finished subtasks, yet /metrics before the failover "
                    + "showed no non-zero jobevent_exposure_bytes for job " + id + " (watch-metrics-*.txt)");
        }
        if (!exposed) {
            throw new ScenarioRun.Disturbed("this run's failover reran no finished subtask (the order of Flink's records "
                    + "differed), so there was no exposure to show");
        }
        Path kept = arch.resolve("flink").resolve(id.toString()).resolve("job-events");
        List<String> copied = EventsDir.files(copy).stream().map(p -> p.getFileName().toString()).toList();
        if (copied.isEmpty()) {
            throw new ScenarioRun.HarnessFailure("watch: the copy at the failover " + copy + " holds no events file");
        }
        for (String name : copied) {
            Path a = kept.resolve(name);
            if (!Files.exists(a) || !Arrays.equals(Files.readAllBytes(copy.resolve(name)), Files.readAllBytes(a))) {
                throw new ScenarioRun.HarnessFailure("watch: the archive's " + name + " is not, byte for byte, the copy "
                        + "taken at the failover (" + (Files.exists(a) ? Files.size(a) + " bytes" : "absent") + ", copy "
                        + Files.size(copy.resolve(name)) + " bytes)");
            }
        }
        List<String> all = EventsDir.files(kept).stream().map(p -> p.getFileName().toString()).toList();
        if (!all.subList(0, Math.min(all.size(), copied.size())).equals(copied)) {
            throw new ScenarioRun.HarnessFailure("watch: the archive's job-events " + all + " do not begin with the copy's " + copied);
        }

        String onCopy = jobevent(out, "watch-dryrun-copy", "replay", copy.toString(), "--dry-run", "--format", "json");
        long at = RestMapperUtils.getStrictObjectMapper().readTree(onCopy).path("last_seq").asLong();
        String onArchive = jobevent(out, "watch-dryrun", "replay", arch.toString(), "--dry-run", "--format", "json",
                "--at", Long.toString(at));
        if (!onArchive.equals(onCopy)) {
            throw new ScenarioRun.HarnessFailure("watch: the dry run on the archive at seq " + at
                    + " differs from the dry run on the copy at the failover (watch-dryrun.json, watch-dryrun-copy.json)");
        }
        // With no flag at all the dry run plans at the archive's newest event: the failover point
        // when watch saw nothing of the new JobMaster before Flink deleted the directory.
        String noFlag = jobevent(out, "watch-dryrun-noflag", "replay", arch.toString(), "--dry-run", "--format", "json");
        if (all.equals(copied) && !noFlag.equals(onCopy)) {
            throw new ScenarioRun.HarnessFailure("watch: the archive holds the copy's files only, yet its dry run with no flag "
                    + "differs from the copy's (watch-dryrun-noflag.json, watch-dryrun-copy.json)");
        }
        System.out.printf("watch: archive %s: %d files (%d at the failover), dry run at seq %d equal to the copy's and to "
                + "Flink's; with no flag %s%n", arch, all.size(), copied.size(), at,
                noFlag.equals(onCopy) ? "equal too" : "planned at seq " + RestMapperUtils.getStrictObjectMapper().readTree(noFlag).path("last_seq").asLong());
        TreeSet<String> diffs = RestCheck.differences(RestMapperUtils.getStrictObjectMapper().readTree(onArchive), truth);
        if (!diffs.isEmpty()) {
            throw new ScenarioRun.HarnessFailure("watch: the dry run on the archive differs from what Flink did: "
                    + String.join("; ", diffs));
        }
    }

    /** stop sends SIGTERM and wants exit status 0. */
    private void stop(Path out) throws Exception {
        proc.destroy();
        if (!proc.waitFor(30, TimeUnit.SECONDS)) {
            throw new ScenarioRun.HarnessFailure("watch: still running 30s after SIGTERM");
        }
        if (proc.exitValue() != 0) {
            throw new ScenarioRun.HarnessFailure("watch: exited " + proc.exitValue() + " on SIGTERM: " + lastLine(out));
        }
    }

    /** close kills watch if it still runs (a failed scenario). */
    void close() {
        if (proc != null && proc.isAlive()) {
            proc.destroyForcibly();
        }
    }

    private String scrape() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + metricsUrl + ": " + r.statusCode());
        }
        return r.body();
    }

    /** exposure is the value of jobevent_exposure_bytes{job="id",...} in a scrape, 0 when absent. */
    static double exposure(String text, String id) {
        String v = metric(text, "jobevent_exposure_bytes{", id);
        return v == null ? 0 : Double.parseDouble(v);
    }

    /** metric is the value of the series of a scrape that starts with name and has job="id". */
    static String metric(String text, String name, String id) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name) && line.contains("job=\"" + id + "\"")) {
                return line.substring(line.lastIndexOf(' ') + 1);
            }
        }
        return null;
    }

    /** jobevent runs the binary, keeps its output as OUTDIR/NAME.json and .stderr, and wants exit 0. */
    private String jobevent(Path out, String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(jobevent));
        cmd.addAll(List.of(args));
        Path json = out.resolve(name + ".json");
        Path stderr = out.resolve(name + ".stderr");
        Process p = new ProcessBuilder(cmd).redirectOutput(json.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new ScenarioRun.HarnessFailure("watch: jobevent " + String.join(" ", args) + " did not finish in 120s");
        }
        if (p.exitValue() != 0) {
            throw new ScenarioRun.HarnessFailure("watch: jobevent " + String.join(" ", args) + " exited " + p.exitValue()
                    + ": " + Files.readString(stderr, StandardCharsets.UTF_8).strip());
        }
        return Files.readString(json, StandardCharsets.UTF_8);
    }

    private static String lastLine(Path out) throws IOException {
        List<String> lines = Files.readAllLines(out.resolve("watch.log"), StandardCharsets.UTF_8);
        return lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
    }
}
