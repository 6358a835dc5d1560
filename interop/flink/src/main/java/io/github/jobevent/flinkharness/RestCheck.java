package io.github.jobevent.flinkharness;

import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * RestCheck runs jobevent (a binary built from this repository, {@code go build ./cmd/jobevent})
 * against a scenario's live MiniCluster after the job: {@code jobevent replay
 * OUTDIR/ha/<cluster-id>/<jobId>/job-events --dry-run --strict --format json --flink-rest URL},
 * with no {@code --lost-worker}: the TaskManagers that REST no longer lists are the lost ones. It
 * writes OUTDIR/jobevent-rest.json and jobevent-rest.stderr and fails unless jobevent exits 0
 * (nothing assumed: --strict) and its dry run equals what Flink did, subtask by subtask (rerun or
 * kept, and the attempt).
 */
final class RestCheck {
    private final String jobevent;

    RestCheck(String jobevent) {
        this.jobevent = jobevent;
    }

    @SuppressWarnings("unchecked")
    void check(String restUrl, Path eventsUnderHa, Map<String, Object> truth, Path out) throws Exception {
        Path dir = out.resolve("ha").resolve(eventsUnderHa.toString());
        Path json = out.resolve("jobevent-rest.json");
        Path stderr = out.resolve("jobevent-rest.stderr");
        Process p = new ProcessBuilder(jobevent, "replay", dir.toString(), "--dry-run", "--strict", "--format", "json", "--flink-rest", restUrl)
                .redirectOutput(json.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new ScenarioRun.HarnessFailure("rest check: jobevent did not finish in 120s");
        }
        if (p.exitValue() != 0) {
            String err = Files.readString(stderr, StandardCharsets.UTF_8).strip();
            throw new ScenarioRun.HarnessFailure("rest check: jobevent --flink-rest exited " + p.exitValue() + ": "
                    + (err.contains("\n") ? err.substring(err.lastIndexOf('\n') + 1) : err));
        }
        TreeSet<String> diffs = differences(RestMapperUtils.getStrictObjectMapper().readTree(json.toFile()), truth);
        if (!diffs.isEmpty()) {
            throw new ScenarioRun.HarnessFailure("rest check: the dry run with --flink-rest differs from what Flink did: "
                    + String.join("; ", diffs));
        }
    }

    /**
     * differences compares a dry run's JSON plan with the truth, subtask by subtask: what the
     * plan decided (keep or rerun, with the attempt) against what Flink did.
     */
    @SuppressWarnings("unchecked")
    static TreeSet<String> differences(JsonNode plan, Map<String, Object> truth) {
        Map<String, String> got = new HashMap<>();
        for (var st : plan.path("subtasks")) {
            got.put(st.path("vertex").asText() + "/" + st.path("subtask").asInt(),
                    decision(!st.path("decision").asText().equals("keep"), st.path("attempt").asInt()));
        }
        TreeSet<String> diffs = new TreeSet<>();
        for (Map<String, Object> st : (List<Map<String, Object>>) truth.get("subtasks")) {
            String key = st.get("vertex_id") + "/" + st.get("subtask");
            String want = decision((Boolean) st.get("ran_again"), (Integer) st.get("attempt"));
            String g = got.remove(key);
            if (!want.equals(g)) {
                diffs.add(key + ": jobevent " + g + ", Flink " + want);
            }
        }
        for (String key : new ArrayList<>(got.keySet())) {
            diffs.add(key + ": jobevent " + got.get(key) + ", not in the truth");
        }
        return diffs;
    }

    private static String decision(boolean rerun, int attempt) {
        return (rerun ? "rerun" : "keep") + " attempt " + attempt;
    }
}
