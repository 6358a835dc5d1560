package io.github.jobevent.flinkharness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Registry is the ground truth of one scenario run, shared by the harness and the probes. The
 * MiniCluster runs the tasks in the harness's JVM and loads the job's classes from the system
 * class path, so a static registry sees every task.
 *
 * <p>It records every run of a probed subtask (which JobVertexID, subtask and attempt, in which
 * failover epoch), holds chosen subtasks at a gate, fails chosen subtasks once, and keeps the
 * sink's output per sink subtask. All methods are safe for concurrent use.
 */
final class Registry {
    private Registry() {}

    /** One run of a probed subtask: from its operator's open() to its finish(). */
    static final class Run {
        final String stage;
        final String vertexId;
        final int subtask;
        final int attempt;
        final String executionId;
        final int epoch;
        volatile boolean finished;

        Run(String stage, String vertexId, int subtask, int attempt, String executionId, int epoch) {
            this.stage = stage;
            this.vertexId = vertexId;
            this.subtask = subtask;
            this.attempt = attempt;
            this.executionId = executionId;
            this.epoch = epoch;
        }
    }

    private static final Object LOCK = new Object();
    private static int epoch;
    private static final List<Run> RUNS = new ArrayList<>();
    private static final Set<String> HOLDS = new HashSet<>();
    private static final Set<String> BLOCKED = new HashSet<>();
    private static final Set<String> FAIL_ONCE = new HashSet<>();
    /** SINK is each sink subtask's output, by "stage/subtask". */
    private static final Map<String, Map<Long, Long>> SINK = new HashMap<>();
    private static boolean dropOne;

    /** reset clears everything before a scenario run. */
    static void reset() {
        synchronized (LOCK) {
            epoch = 0;
            RUNS.clear();
            HOLDS.clear();
            BLOCKED.clear();
            FAIL_ONCE.clear();
            SINK.clear();
            dropOne = false;
            LOCK.notifyAll();
        }
    }

    /** ALL as a hold's subtask holds every subtask of the stage. */
    static final int ALL = -1;

    static String key(String stage, int subtask, int epoch) {
        return stage + "/" + subtask + "@" + epoch;
    }

    /** epoch returns the failover epoch: the number of JobMaster leadership grants so far. */
    static int epoch() {
        synchronized (LOCK) {
            return epoch;
        }
    }

    /** nextEpoch is called right before leadership is granted back. */
    static void nextEpoch() {
        synchronized (LOCK) {
            epoch++;
        }
    }

    static void hold(String stage, int subtask, int atEpoch) {
        synchronized (LOCK) {
            HOLDS.add(key(stage, subtask, atEpoch));
        }
    }

    static void failOnce(String stage, int subtask, int atEpoch) {
        synchronized (LOCK) {
            FAIL_ONCE.add(key(stage, subtask, atEpoch));
        }
    }

    /** releaseAll opens every gate; used when a run is abandoned. */
    static void releaseAll() {
        synchronized (LOCK) {
            HOLDS.clear();
            LOCK.notifyAll();
        }
    }

    /** blocked returns the keys of the subtasks waiting at a gate now. */
    static Set<String> blocked() {
        synchronized (LOCK) {
            return new HashSet<>(BLOCKED);
        }
    }

    static List<Run> runs() {
        synchronized (LOCK) {
            return new ArrayList<>(RUNS);
        }
    }

    /** started records a run and returns it; the epoch is the current one. */
    static Run started(String stage, String vertexId, int subtask, int attempt, String executionId) {
        synchronized (LOCK) {
            Run r = new Run(stage, vertexId, subtask, attempt, executionId, epoch);
            RUNS.add(r);
            return r;
        }
    }

    /**
     * gate blocks while a hold names this subtask in the run's epoch. It returns early with an
     * InterruptedException when Flink cancels the task (the JobMaster lost leadership).
     */
    static void gate(Run run) throws InterruptedException {
        String k = key(run.stage, run.subtask, run.epoch);
        String any = key(run.stage, ALL, run.epoch);
        synchronized (LOCK) {
            if (!HOLDS.contains(k) && !HOLDS.contains(any)) {
                return;
            }
            BLOCKED.add(k);
            try {
                while (HOLDS.contains(k) || HOLDS.contains(any)) {
                    LOCK.wait();
                }
            } finally {
                BLOCKED.remove(k);
            }
        }
    }

    /** shouldFail reports whether this run is to fail, and consumes the failure. */
    static boolean shouldFail(Run run) {
        synchronized (LOCK) {
            return FAIL_ONCE.remove(key(run.stage, run.subtask, run.epoch));
        }
    }

    /** sinkOpened forgets the output of an earlier attempt of the sink subtask. */
    static void sinkOpened(String stage, int subtask) {
        synchronized (LOCK) {
            SINK.put(stage + "/" + subtask, new HashMap<>());
        }
    }

    /** dropOneSinkRecord makes the sink lose its next record: the self-test of the output check. */
    static void dropOneSinkRecord() {
        synchronized (LOCK) {
            dropOne = true;
        }
    }

    static void sinkRecord(String stage, int subtask, long key, long count) {
        synchronized (LOCK) {
            if (dropOne) {
                dropOne = false;
                return;
            }
            SINK.computeIfAbsent(stage + "/" + subtask, s -> new HashMap<>()).merge(key, count, Long::sum);
        }
    }

    /** sinkOutput returns a sink stage's output: the last attempt of each of its subtasks, summed. */
    static Map<Long, Long> sinkOutput(String stage) {
        synchronized (LOCK) {
            Map<Long, Long> out = new java.util.TreeMap<>();
            SINK.forEach((k, v) -> {
                if (k.startsWith(stage + "/")) {
                    v.forEach((key, n) -> out.merge(key, n, Long::sum));
                }
            });
            return out;
        }
    }
}
