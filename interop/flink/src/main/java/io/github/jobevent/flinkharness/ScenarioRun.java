package io.github.jobevent.flinkharness;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecution;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.rest.messages.JobPlanInfo;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.runtime.taskexecutor.TaskExecutor;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * ScenarioRun runs one scenario in a MiniCluster of its own, with Flink's ZooKeeper HA services
 * (see {@link ZooKeeper}): submit, and for each failover wait for the intended point, revoke
 * leadership, copy the HA storage directory as Flink left it (job-events, the submitted job
 * graph or execution plan), apply the damage, grant leadership back; then wait for the job,
 * check its output and write truth.json and plan.json. Any deviation (a point not reached, a
 * wrong output, records missing from the log) throws.
 */
final class ScenarioRun {
    static final int TASK_MANAGERS = 2;
    static final int SLOTS_PER_TASK_MANAGER = 4;
    private static final long JOB_TIMEOUT_MS = 90_000;
    /** CLUSTER_ID is Flink's default high-availability.cluster-id, "/default". */
    static final String CLUSTER_ID = "default";

    private final Scenario s;
    private final String version;
    private final Path out;

    /** restCheck, when set, runs jobevent against the live cluster's REST after the job. */
    private final RestCheck restCheck;

    /** watch, when set, runs jobevent watch beside the cluster (see {@link WatchCheck}). */
    private WatchCheck watch;

    ScenarioRun(Scenario s, String version, Path out) {
        this(s, version, out, null);
    }

    ScenarioRun(Scenario s, String version, Path out, RestCheck restCheck) {
        this.s = s;
        this.version = version;
        this.out = out;
        this.restCheck = restCheck;
    }

    /** watching makes the run check jobevent watch. */
    ScenarioRun watching(WatchCheck w) {
        this.watch = w;
        return this;
    }

    /** Sub is one subtask as the JobMaster saw it at a failover point. */
    record Sub(ExecutionState state, String attemptId, int attempt, String taskManager) {}

    /** Vertex is one job vertex as the JobMaster saw it at a failover point. */
    record Vertex(String id, String name, int parallelism, boolean initialized, List<Sub> subs) {}

    void run() throws Exception {
        Path tmp = Files.createTempDirectory("flink-harness-" + s.name + "-");
        Registry.reset();
        try (ZooKeeper zk = new ZooKeeper(Files.createDirectories(tmp.resolve("zookeeper")));
                MiniCluster mc = new MiniCluster(clusterConfiguration(tmp, zk))) {
            mc.start();
            try {
                runJob(mc, zk, tmp.resolve("ha"));
            } finally {
                // The MiniCluster shuts down through its HA services: Flink must reach ZooKeeper.
                Registry.releaseAll();
                zk.restore();
            }
        } finally {
            if (watch != null) {
                watch.close();
            }
            Registry.releaseAll();
            deleteTree(tmp);
        }
    }

    private MiniClusterConfiguration clusterConfiguration(Path tmp, ZooKeeper zk) throws IOException {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("high-availability.type", "zookeeper");
        c.put("high-availability.zookeeper.quorum", zk.quorum());
        c.put("execution.batch.job-recovery.enabled", "true");
        c.put("execution.batch.job-recovery.snapshot.min-pause", s.minPauseMillis + " ms");
        c.put("execution.batch.job-recovery.previous-worker.recovery.timeout", s.recoveryTimeoutMillis + " ms");
        c.put("high-availability.storageDir", tmp.resolve("ha").toUri().toString());
        c.put("io.tmp.dirs", Files.createDirectories(tmp.resolve("io")).toString());
        c.put("jobmanager.scheduler", "AdaptiveBatch");
        c.put("jobmanager.execution.failover-strategy", "region");
        c.put("restart-strategy.type", "fixed-delay");
        c.put("restart-strategy.fixed-delay.attempts", "10");
        c.put("restart-strategy.fixed-delay.delay", "100 ms");
        c.put("execution.batch.adaptive.auto-parallelism.max-parallelism", "4");
        c.put("execution.batch.adaptive.auto-parallelism.avg-data-volume-per-task", "16kb");
        c.put("taskmanager.load-balance.mode", "SLOTS");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.port", "0");
        // Every server (RPC, blob server, shuffle data servers, REST) on 127.0.0.1 only.
        c.put("taskmanager.host", "127.0.0.1");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.bind-host", "127.0.0.1");
        return new MiniClusterConfiguration.Builder()
                .setConfiguration(Configuration.fromMap(c))
                .setNumTaskManagers(TASK_MANAGERS)
                .setNumSlotsPerTaskManager(SLOTS_PER_TASK_MANAGER)
                .setCommonBindAddress("127.0.0.1")
                .setHaServices(MiniCluster.HaServices.CONFIGURED)
                .build();
    }

    private void runJob(MiniCluster mc, ZooKeeper zk, Path storage) throws Exception {
        List<String> taskManagers = taskManagerIds(mc);
        for (String spec : s.failOnce) {
            String[] p = spec.split("[:@]");
            Registry.failOnce(p[0], Integer.parseInt(p[1]), Integer.parseInt(p[2]));
        }
        addHolds(s.failovers.get(0), 0);
        if (s.dropSinkRecord) {
            Registry.dropOneSinkRecord();
        }

        JobGraph jg = JobBuilder.build(s, Files.createDirectories(storage.resolveSibling("input")));
        JobID id = jg.getJobID();
        if (watch != null) {
            watch.start(storage, mc.getRestAddress().get(30, TimeUnit.SECONDS).toString(), out);
        }
        mc.submitJob(jg).get(30, TimeUnit.SECONDS);
        Path events = storage.resolve(CLUSTER_ID).resolve(id.toString()).resolve("job-events");

        List<Map<String, Vertex>> points = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        List<String> copied = List.of();
        Set<String> recoverable = new HashSet<>();
        int filesBefore = 0;
        for (int k = 0; k < s.failovers.size(); k++) {
            Scenario.Failover f = s.failovers.get(k);
            Map<String, Vertex> point = awaitPoint(mc, id, f, k);
            points.add(point);
            if (watch != null) {
                watch.beforeFailover(id, k, out);
            }
            zk.cut();
            awaitSuspended(k);

            int wantFinished = 0;
            Set<String> finishedNow = new HashSet<>();
            for (Vertex v : point.values()) {
                for (Sub sub : v.subs()) {
                    if (sub.state() == ExecutionState.FINISHED) {
                        finishedNow.add(sub.attemptId());
                        if (!recoverable.contains(sub.attemptId())) {
                            wantFinished++;
                        }
                    }
                }
            }
            awaitLog(events, filesBefore, wantFinished, k);
            boolean last = k == s.failovers.size() - 1;
            EventsDir.copyTree(storage, out.resolve(last ? "ha" : "ha.failover-" + (k + 1)));
            copied = EventsDir.files(events).stream().map(p -> p.getFileName().toString()).toList();
            filesBefore = EventsDir.files(events).size();
            recoverable = finishedNow;

            if (f.loseTaskManagerOf != null) {
                String tm = taskManagerOf(point, f.loseTaskManagerOf);
                int index = taskManagers.indexOf(tm);
                if (index < 0) {
                    throw new HarnessFailure("no TaskManager " + tm + " among " + taskManagers);
                }
                mc.terminateTaskManager(index).get(30, TimeUnit.SECONDS);
                lost.add(tm);
            }
            if (!last) {
                addHolds(s.failovers.get(k + 1), k + 1);
            }
            Registry.nextEpoch();
            zk.restore();
            awaitRecovered(mc, id, k);
        }

        JobResult result = jobResult(mc, id);
        if (!result.isSuccess()) {
            throw new HarnessFailure("job failed: " + result.getSerializedThrowable()
                    .map(t -> t.getFullStringifiedStackTrace()).orElse("no cause"));
        }
        AccessExecutionGraph fin = mc.getArchivedExecutionGraph(id).get(30, TimeUnit.SECONDS);
        checkOutput();
        String plan = plan(fin);
        checkNothingMissed(id, points, lost, plan);
        Map<String, Object> truth = truth(id, points.get(points.size() - 1), fin, taskManagers, lost, copied);
        Files.writeString(out.resolve("truth.json"), Json.write(truth), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("plan.json"), plan + "\n", StandardCharsets.UTF_8);
        if (restCheck != null) {
            restCheck.check(mc.getRestAddress().get(30, TimeUnit.SECONDS).toString(),
                    events.subpath(storage.getNameCount(), events.getNameCount()), truth, out);
        }
        if (watch != null) {
            watch.afterJob(id, events, out.resolve("ha").resolve(events.subpath(storage.getNameCount(), events.getNameCount()).toString()), truth, out);
        }
    }

    private void addHolds(Scenario.Failover f, int epoch) {
        for (Scenario.Sel sel : f.holds) {
            if (sel.all()) {
                Registry.hold(sel.stage(), Registry.ALL, epoch);
            } else {
                for (int i : sel.subtasks()) {
                    Registry.hold(sel.stage(), i, epoch);
                }
            }
        }
    }

    /** stages maps JobVertexIDs to stage names, from the probes' records. */
    private static Map<String, String> stages() {
        Map<String, String> m = new HashMap<>();
        for (Registry.Run r : Registry.runs()) {
            m.put(r.vertexId, r.stage);
        }
        return m;
    }

    private static Map<String, Vertex> snapshot(AccessExecutionGraph eg) {
        Map<String, Vertex> m = new LinkedHashMap<>();
        for (AccessExecutionJobVertex jv : eg.getVerticesTopologically()) {
            List<Sub> subs = new ArrayList<>();
            for (AccessExecutionVertex ev : jv.getTaskVertices()) {
                AccessExecution ex = ev.getCurrentExecutionAttempt();
                TaskManagerLocation loc = ex.getAssignedResourceLocation();
                subs.add(new Sub(ex.getState(), ex.getAttemptId().toString(), ex.getAttemptNumber(),
                        loc == null ? null : loc.getResourceID().getResourceIdString()));
            }
            String vid = jv.getJobVertexId().toString();
            m.put(vid, new Vertex(vid, jv.getName(), jv.getParallelism(), !subs.isEmpty(), subs));
        }
        return m;
    }

    /**
     * awaitPoint waits until the job stands still at failover k's point: the held subtasks wait at
     * their gates, nothing else runs, and exactly the expected subtasks have finished, twice in a
     * row. It returns the JobMaster's view at that point.
     */
    private Map<String, Vertex> awaitPoint(MiniCluster mc, JobID id, Scenario.Failover f, int epoch) throws Exception {
        long deadline = System.currentTimeMillis() + s.pointTimeoutMillis;
        String previous = null;
        String why = "";
        while (System.currentTimeMillis() < deadline) {
            AccessExecutionGraph eg;
            try {
                eg = mc.getExecutionGraph(id).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // No leader yet after a grant, or the job is still being recovered.
                why = "no execution graph: " + e.getCause();
                previous = null;
                Thread.sleep(250);
                continue;
            }
            if (eg.getState().isGloballyTerminalState()) {
                throw new HarnessFailure("job " + eg.getState() + " before failover " + (epoch + 1));
            }
            Map<String, Vertex> point = snapshot(eg);
            Map<String, String> stageOf = stages();
            Map<String, Integer> parallelismOf = new HashMap<>();
            point.values().forEach(v -> {
                if (stageOf.containsKey(v.id()) && v.initialized()) {
                    parallelismOf.put(stageOf.get(v.id()), v.parallelism());
                }
            });
            Set<String> blocked = Registry.blocked();
            TreeSet<String> finished = new TreeSet<>();
            TreeSet<String> busy = new TreeSet<>();
            for (Vertex v : point.values()) {
                String stage = stageOf.getOrDefault(v.id(), v.name());
                for (int i = 0; i < v.subs().size(); i++) {
                    ExecutionState st = v.subs().get(i).state();
                    if (st == ExecutionState.FINISHED) {
                        finished.add(stage + ":" + i);
                    } else if (st != ExecutionState.CREATED && !blocked.contains(Registry.key(stage, i, epoch))) {
                        busy.add(stage + ":" + i + "=" + st);
                    }
                }
            }
            TreeSet<String> expected = new TreeSet<>();
            boolean known = true;
            for (Scenario.Sel sel : f.finished) {
                Integer p = parallelismOf.get(sel.stage());
                if (p == null && sel.all()) {
                    known = false;
                    continue;
                }
                for (int i : sel.expand(p == null ? 0 : p)) {
                    expected.add(sel.stage() + ":" + i);
                }
            }
            boolean held = true;
            for (Scenario.Sel sel : f.holds) {
                Integer p = parallelismOf.get(sel.stage());
                if (p == null) {
                    held = false;
                    continue;
                }
                for (int i : sel.all() ? sel.expand(p) : sel.subtasks()) {
                    held &= blocked.contains(Registry.key(sel.stage(), i, epoch));
                }
            }
            why = "finished " + finished + ", want " + expected + (known ? "" : " (parallelism unknown)")
                    + "; running " + busy + "; held " + new TreeSet<>(blocked) + (held ? "" : " (not all holds reached)");
            boolean ready = known && held && busy.isEmpty() && finished.equals(expected);
            if (ready && why.equals(previous)) {
                return point;
            }
            previous = ready ? why : null;
            Thread.sleep(250);
        }
        throw new HarnessFailure("failover " + (epoch + 1) + " point not reached in " + s.pointTimeoutMillis / 1000 + "s: " + why);
    }

    /**
     * awaitRecovered waits, after leadership was granted back, until the new Dispatcher answers
     * for the job: the old one answers SUSPENDED until it has stopped.
     */
    private static void awaitRecovered(MiniCluster mc, JobID id, int k) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            try {
                JobStatus st = mc.getJobStatus(id).get(5, TimeUnit.SECONDS);
                if (st != JobStatus.SUSPENDED) {
                    return;
                }
                last = st.toString();
            } catch (ExecutionException | TimeoutException e) {
                last = String.valueOf(e.getCause());
            }
            Thread.sleep(100);
        }
        throw new HarnessFailure("failover " + (k + 1) + ": the job was not recovered 60s after leadership was granted: " + last);
    }

    /**
     * jobResult waits for the job's result from the Dispatcher that ran it to the end. A job that
     * does not end within JOB_TIMEOUT_MS after its failovers (it ends in seconds) is a run the
     * harness disturbed: Flink's recovery stood still once in a CI run of two-failovers, which
     * passes in 6 s otherwise. It gives no ground truth and is run again ({@link Disturbed}),
     * naming the subtasks that had not finished.
     */
    private static JobResult jobResult(MiniCluster mc, JobID id) throws Exception {
        long deadline = System.currentTimeMillis() + JOB_TIMEOUT_MS;
        while (true) {
            JobResult r;
            try {
                r = mc.requestJobResult(id).get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new Disturbed("the job did not end within " + JOB_TIMEOUT_MS / 1000
                        + " s after its failovers; not finished: " + unfinished(mc, id));
            }
            if (!suspended(r) || System.currentTimeMillis() > deadline) {
                return r;
            }
            Thread.sleep(100);
        }
    }

    /** unfinished names the job's subtasks that have not finished, by vertex and state. */
    private static String unfinished(MiniCluster mc, JobID id) {
        AccessExecutionGraph eg;
        try {
            eg = mc.getExecutionGraph(id).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "no execution graph (" + e + ")";
        }
        List<String> parts = new ArrayList<>();
        for (Vertex v : snapshot(eg).values()) {
            Map<ExecutionState, Integer> count = new TreeMap<>();
            v.subs().forEach(sub -> {
                if (sub.state() != ExecutionState.FINISHED) {
                    count.merge(sub.state(), 1, Integer::sum);
                }
            });
            if (!count.isEmpty()) {
                parts.add(v.name() + " " + count);
            }
        }
        return parts.isEmpty() ? "none (job " + eg.getState() + ")" : String.join("; ", parts);
    }

    /**
     * suspended reports whether a job result is a suspended job's (a stopping Dispatcher
     * answered): Flink 2 has JobResult.getJobStatus, Flink 1.20 only the application status,
     * UNKNOWN for a suspended job.
     */
    @SuppressWarnings("unchecked")
    private static boolean suspended(JobResult r) throws ReflectiveOperationException {
        try {
            Optional<JobStatus> st = (Optional<JobStatus>) JobResult.class.getMethod("getJobStatus").invoke(r);
            return st.isPresent() && st.get() == JobStatus.SUSPENDED;
        } catch (NoSuchMethodException e) {
            return JobResult.class.getMethod("getApplicationStatus").invoke(r).toString().equals("UNKNOWN");
        }
    }

    /**
     * awaitSuspended waits, after leadership was revoked, until the JobMaster has cancelled the
     * subtasks held at their gates: the job is suspended and its JobMaster gone.
     */
    private static void awaitSuspended(int k) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!Registry.blocked().isEmpty()) {
            if (System.currentTimeMillis() > deadline) {
                throw new HarnessFailure("failover " + (k + 1) + ": subtasks still held 60s after leadership was revoked: "
                        + new TreeSet<>(Registry.blocked()));
            }
            Thread.sleep(100);
        }
    }

    /**
     * awaitLog waits until the old JobMaster's files (from index first) hold one vertex-finished
     * record per subtask that finished under it, and the directory has stopped changing. When
     * the old JobMaster never wrote them (its buffered records went with its leadership), the
     * run is {@link Disturbed}: the failover point the scenario asks for is not in the log.
     */
    private static void awaitLog(Path events, int first, int want, int k) throws Exception {
        long deadline = System.currentTimeMillis() + 20_000;
        String previous = null;
        int stable = 0;
        int got = -1;
        while (System.currentTimeMillis() < deadline) {
            String sizes = EventsDir.sizes(events);
            got = Files.isDirectory(events) ? EventsDir.count(events, first)[1] : 0;
            stable = sizes.equals(previous) ? stable + 1 : 0;
            previous = sizes;
            if (got == want && stable >= 4) {
                return;
            }
            Thread.sleep(250);
        }
        throw new Disturbed("failover " + (k + 1) + ": job-events holds " + got
                + " vertex-finished records of the last JobMaster, want " + want + " (" + previous + ")");
    }

    private String taskManagerOf(Map<String, Vertex> point, Scenario.Sel sel) {
        Map<String, String> stageOf = stages();
        for (Vertex v : point.values()) {
            if (sel.stage().equals(stageOf.get(v.id()))) {
                String tm = v.subs().get(sel.subtasks().first()).taskManager();
                if (tm == null) {
                    throw new HarnessFailure(sel + " has no TaskManager at the failover");
                }
                return tm;
            }
        }
        throw new HarnessFailure("no vertex for " + sel);
    }

    @SuppressWarnings("unchecked")
    private static List<String> taskManagerIds(MiniCluster mc) throws ReflectiveOperationException {
        Field f = MiniCluster.class.getDeclaredField("taskManagers");
        f.setAccessible(true);
        List<String> ids = new ArrayList<>();
        for (TaskExecutor te : (List<TaskExecutor>) f.get(mc)) {
            ids.add(te.getResourceID().getResourceIdString());
        }
        return ids;
    }

    /**
     * checkOutput compares each sink's output (last attempt per subtask) with the exact counts:
     * every key n mod K of the records 0..N-1, times the sink's factor (how many times the job
     * feeds each record to it: two unioned sources, a broadcast edge, ...).
     */
    private void checkOutput() {
        for (Map.Entry<String, Integer> sink : s.sinks.entrySet()) {
            Map<Long, Long> got = Registry.sinkOutput(sink.getKey());
            TreeMap<Long, Long> want = new TreeMap<>();
            for (long n = 0; n < s.records; n++) {
                want.merge(n % s.keys, (long) sink.getValue(), Long::sum);
            }
            if (!got.equals(want)) {
                long total = got.values().stream().mapToLong(Long::longValue).sum();
                throw new HarnessFailure("wrong output of " + sink.getKey() + ": " + got.size() + " keys, " + total
                        + " records; want " + want.size() + " keys, " + s.records * sink.getValue() + " records");
            }
        }
    }

    private Map<String, Object> truth(JobID id, Map<String, Vertex> point, AccessExecutionGraph fin,
            List<String> taskManagers, List<String> lost, List<String> copied) {
        int failovers = s.failovers.size();
        Map<String, String> stageOf = stages();
        Map<String, Vertex> end = snapshot(fin);
        List<Object> vertices = new ArrayList<>();
        List<Object> subtasks = new ArrayList<>();
        for (Vertex v : point.values()) {
            Vertex e = end.get(v.id());
            Map<String, Object> vm = new LinkedHashMap<>();
            vm.put("vertex_id", v.id());
            vm.put("name", e.name());
            vm.put("parallelism", e.parallelism());
            vm.put("initialized_at_failover", v.initialized());
            vm.put("stage", stageOf.get(v.id()));
            vm.put("parallelism_at_failover", v.initialized() ? v.parallelism() : -1);
            vertices.add(vm);
            if (!v.initialized()) {
                continue;
            }
            for (int i = 0; i < v.subs().size(); i++) {
                subtasks.add(subtaskRow(v, i, e.subs().get(i), failovers));
            }
        }
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("flink_version", version);
        t.put("scenario", s.name);
        t.put("failovers", failovers);
        t.put("lost_taskmanagers", lost);
        t.put("vertices", vertices);
        t.put("subtasks", subtasks);
        t.put("description", s.description);
        t.put("job_id", id.toString());
        t.put("taskmanagers", taskManagers);
        Map<String, Object> conf = new LinkedHashMap<>();
        conf.put("snapshot_min_pause_ms", s.minPauseMillis);
        conf.put("previous_worker_recovery_timeout_ms", s.recoveryTimeoutMillis);
        conf.put("taskmanagers", TASK_MANAGERS);
        conf.put("slots_per_taskmanager", SLOTS_PER_TASK_MANAGER);
        conf.put("records", s.records);
        conf.put("keys", s.keys);
        t.put("config", conf);
        t.put("job_events_files", copied);
        return t;
    }

    private Map<String, Object> subtaskRow(Vertex v, int i, Sub end, int failovers) {
        Sub at = v.subs().get(i);
        List<Object> runs = new ArrayList<>();
        boolean ranAgain = false;
        List<Registry.Run> rs = new ArrayList<>(Registry.runs());
        rs.sort(Comparator.comparingInt((Registry.Run r) -> r.epoch));
        for (Registry.Run r : rs) {
            if (!r.vertexId.equals(v.id()) || r.subtask != i) {
                continue;
            }
            ranAgain |= r.epoch >= failovers;
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("epoch", r.epoch);
            rm.put("attempt", r.attempt);
            rm.put("execution_attempt_id", r.executionId);
            rm.put("finished", r.finished);
            runs.add(rm);
        }
        boolean kept = at.state() == ExecutionState.FINISHED && at.attemptId().equals(end.attemptId());
        if (ranAgain == kept) {
            throw new HarnessFailure(v.name() + " subtask " + i + ": probes say ran_again=" + ranAgain
                    + " but the JobMaster's attempt went " + at.attemptId() + " (" + at.state() + ") -> " + end.attemptId());
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("vertex_id", v.id());
        m.put("subtask", i);
        m.put("ran_again", ranAgain);
        m.put("attempt", end.attempt());
        m.put("state_at_failover", at.state().toString());
        m.put("attempt_at_failover", at.attempt());
        m.put("taskmanager_at_failover", at.taskManager());
        m.put("runs", runs);
        return m;
    }

    /**
     * plan returns what Flink's REST GET /jobs/:jobid/plan returns for the finished job: the
     * execution graph's JSON plan wrapped in {"plan": ...}, serialized by Flink's REST mapper.
     * Flink 1.20 keeps the plan as a JSON string (getJsonPlan), Flink 2 as an object (getPlan).
     */
    static String plan(AccessExecutionGraph eg) throws Exception {
        Object info;
        try {
            Method m = AccessExecutionGraph.class.getMethod("getPlan");
            info = JobPlanInfo.class.getConstructor(m.getReturnType()).newInstance(m.invoke(eg));
        } catch (NoSuchMethodException e) {
            String json = (String) AccessExecutionGraph.class.getMethod("getJsonPlan").invoke(eg);
            info = JobPlanInfo.class.getConstructor(String.class).newInstance(json);
        }
        var mapper = RestMapperUtils.getStrictObjectMapper();
        // Read back and indent, so that 1.20's raw plan string is indented like 2.x's object.
        return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(mapper.readTree(mapper.writeValueAsString(info)));
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var w = Files.walk(p)) {
            for (Path x : w.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }

    /**
     * checkNothingMissed throws {@link Disturbed} when a recovering JobMaster of the job missed a
     * partition because a TaskManager still alive did not answer in time: the harness's failover
     * cuts the TaskManagers off from ZooKeeper too, and one sometimes answers the new JobMaster's
     * partition request only after its timeout ("Timeout occurred ... while fetching
     * partition(s)", then the partition among the "missed partitions" of Flink's recovery line,
     * or Flink's recovery failing on the timeout and restarting the whole job).
     * Flink then reruns producers whose partitions exist, which no job-events record can tell, so
     * such a run is no ground truth. The partitions of a vertex whose consumers had all finished
     * at the failover point are meant to be missed (Flink's release strategy released them), and
     * so are the partitions of a TaskManager the scenario stopped.
     */
    private void checkNothingMissed(JobID id, List<Map<String, Vertex>> points, List<String> lost, String plan)
            throws IOException {
        Map<String, List<String[]>> consumers = new HashMap<>();
        for (var node : RestMapperUtils.getStrictObjectMapper().readTree(plan).path("plan").path("nodes")) {
            for (var input : node.path("inputs")) {
                consumers.computeIfAbsent(input.path("id").asText(), k -> new ArrayList<>())
                        .add(new String[] {node.path("id").asText(), input.path("ship_strategy").asText()});
            }
        }
        String logFile = System.getProperty("org.slf4j.simpleLogger.logFile");
        if (logFile == null || logFile.equals("System.err") || logFile.equals("System.out")) {
            return;
        }
        Map<String, String> taskManagerOf = new HashMap<>();
        for (Map<String, Vertex> point : points) {
            for (Vertex v : point.values()) {
                for (Sub sub : v.subs()) {
                    if (sub.taskManager() != null) {
                        taskManagerOf.put(sub.attemptId(), sub.taskManager());
                    }
                }
            }
        }
        List<String> lines = Files.readAllLines(Path.of(logFile), StandardCharsets.UTF_8);
        String recovered = "Job " + id + " successfully recovered from JM failover";
        String failed = "Job " + id + " recover failed from JM failover, fail global";
        int failover = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(failed)) {
                // The recovery gave up on the timeout itself: Flink deletes the log and restarts
                // the whole job, every partition it asked for counts as missed.
                Set<String> timedOut = timedOutBefore(lines, i);
                Map<String, Vertex> point = points.get(Math.min(failover + 1, points.size() - 1));
                checkTimedOut(timedOut, timedOut, point, consumers, taskManagerOf, lost, "failed after timing out");
                continue;
            }
            if (!lines.get(i).contains(recovered)) {
                continue;
            }
            Map<String, Vertex> point = points.get(Math.min(++failover, points.size() - 1));
            Set<String> missed = new HashSet<>();
            int j = i - 1;
            for (; j >= Math.max(0, i - 5); j--) {
                List<String> list = bracketed(lines.get(j), "missed partitions: [");
                if (list != null) {
                    missed.addAll(list);
                    break;
                }
            }
            checkTimedOut(missed, timedOutBefore(lines, j), point, consumers, taskManagerOf, lost, "timed out");
        }
    }

    /** timedOutBefore returns the partitions of the "while fetching partition(s)" line within 5 lines before line i. */
    private static Set<String> timedOutBefore(List<String> lines, int i) {
        Set<String> timedOut = new HashSet<>();
        for (int k = i - 1; k >= Math.max(0, i - 5); k--) {
            List<String> list = bracketed(lines.get(k), "while fetching partition(s) ([");
            if (list != null) {
                timedOut.addAll(list);
                break;
            }
        }
        return timedOut;
    }

    /**
     * checkTimedOut throws {@link Disturbed} when a partition of missed that Flink's recovery timed
     * out fetching was neither released at the point nor on a TaskManager the scenario stopped.
     */
    private static void checkTimedOut(Set<String> missed, Set<String> timedOut, Map<String, Vertex> point,
            Map<String, List<String[]>> consumers, Map<String, String> taskManagerOf, List<String> lost, String how) {
        for (String partition : missed) {
            int producer = partition.indexOf('@');
            if (producer < 0 || !timedOut.contains(partition)) {
                continue;
            }
            String attempt = partition.substring(producer + 1);
            if (released(attempt, consumers, point)) {
                continue;
            }
            String tm = taskManagerOf.get(attempt);
            if (tm == null || !lost.contains(tm)) {
                throw new Disturbed("Flink's recovery " + how + " fetching partition " + partition + " of "
                        + (tm == null ? "an unknown TaskManager" : "TaskManager " + tm + ", still running"));
            }
        }
    }

    /**
     * released reports whether the partition that attempt (an ExecutionAttemptID,
     * "graph_vertex_subtask_attempt") produced may have been released at the point: every
     * consumer subtask of one of its producer's out-edges had finished. A FORWARD edge feeds the
     * consumer subtask of the same index, a RESCALE edge Flink's pointwise range, any other edge
     * every consumer subtask. The REST plan does not say which edge a dataset id is, so a
     * producer with two datasets (a FORWARD and a REBALANCE edge to one vertex) counts as
     * released when either edge's consumers have finished.
     */
    private static boolean released(String attempt, Map<String, List<String[]>> consumers, Map<String, Vertex> point) {
        String[] parts = attempt.split("_");
        if (parts.length < 3) {
            return false;
        }
        Vertex producer = point.get(parts[1]);
        if (producer == null) {
            return false;
        }
        int i = Integer.parseInt(parts[2]);
        int p = producer.parallelism();
        for (String[] edge : consumers.getOrDefault(parts[1], List.of())) {
            Vertex v = point.get(edge[0]);
            if (v == null || !v.initialized()) {
                continue;
            }
            int c = v.subs().size();
            boolean all = true;
            for (int j = 0; j < c && all; j++) {
                boolean reads = switch (edge[1]) {
                    case "FORWARD" -> j == i;
                    case "RESCALE" -> p >= c ? (long) j * p / c <= i && i < (long) (j + 1) * p / c
                            : (long) i * c / p <= j && j < (long) (i + 1) * c / p;
                    default -> true;
                };
                all = !reads || v.subs().get(j).state() == ExecutionState.FINISHED;
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /** bracketed returns the comma-separated list after marker up to its ']', or null. */
    private static List<String> bracketed(String line, String marker) {
        int at = line.indexOf(marker);
        if (at < 0) {
            return null;
        }
        int end = line.indexOf(']', at);
        String list = line.substring(at + marker.length(), end < 0 ? line.length() : end);
        return list.isEmpty() ? List.of() : List.of(list.split(", "));
    }

    /** Disturbed is a run whose outcome the harness itself disturbed: run it again. */
    static final class Disturbed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Disturbed(String message) {
            super(message);
        }
    }

    /** HarnessFailure is a scenario that did not go as intended. */
    static final class HarnessFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HarnessFailure(String message) {
            super(message);
        }
    }
}
