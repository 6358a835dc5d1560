package io.github.jobevent.flinkharness;

import org.apache.flink.streaming.api.datastream.DataStream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Scenario is one harness run: the job's shape (source kind, middle stages, keyed count, sink),
 * the recovery settings, and the failovers: where each one happens (which subtasks are held at a
 * gate and which must have finished) and what damage follows it.
 */
final class Scenario {
    /**
     * SourceKind is a source's implementation: Flink's NumberSequenceSource, a copy whose
     * enumerator has no batch snapshot, a FileSource over text files of numbers (batch snapshots
     * only from Flink 2.0), or a DataGeneratorSource.
     */
    enum SourceKind { SEQUENCE, NO_BATCH_SNAPSHOT, FILE, DATAGEN }

    enum Edge { FORWARD, RESCALE, REBALANCE, HASH, BROADCAST }

    /**
     * Shape builds a job other than the linear one: sources, stages, keyed counts and sinks,
     * each a job vertex with its probe, through {@link JobBuilder.Ctx}.
     */
    interface Shape {
        void build(JobBuilder.Ctx c);
    }

    /** AUTO leaves a stage's parallelism to the AdaptiveBatch scheduler. */
    static final int AUTO = -1;

    record Stage(String name, Edge edge, int parallelism) {}

    /**
     * Sel names subtasks of a stage: "map:*" all, "map:0,2" some, "map:*-0" all but some.
     * Stages are src, the middle stages' names, agg and sink.
     */
    record Sel(String stage, boolean all, TreeSet<Integer> subtasks) {
        static Sel parse(String spec) {
            int colon = spec.indexOf(':');
            String stage = spec.substring(0, colon);
            String rest = spec.substring(colon + 1);
            boolean all = rest.startsWith("*");
            if (all) {
                rest = rest.startsWith("*-") ? rest.substring(2) : "";
            }
            TreeSet<Integer> subs = new TreeSet<>();
            for (String p : rest.split(",")) {
                if (!p.isEmpty()) {
                    subs.add(Integer.parseInt(p));
                }
            }
            return new Sel(stage, all, subs);
        }

        /** expand returns the selected subtasks of a stage with the given parallelism. */
        TreeSet<Integer> expand(int parallelism) {
            TreeSet<Integer> out = new TreeSet<>();
            if (all) {
                for (int i = 0; i < parallelism; i++) {
                    if (!subtasks.contains(i)) {
                        out.add(i);
                    }
                }
            } else {
                out.addAll(subtasks);
            }
            return out;
        }

        @Override
        public String toString() {
            return stage + ":" + (all ? "*" + (subtasks.isEmpty() ? "" : "-") : "")
                    + String.join(",", subtasks.stream().map(String::valueOf).toList());
        }
    }

    /** Failover: hold these, expect exactly these finished, then revoke; lose a TaskManager. */
    static final class Failover {
        final List<Sel> holds = new ArrayList<>();
        final List<Sel> finished = new ArrayList<>();
        /** loseTaskManagerOf names one subtask: the TaskManager it ran on is stopped. */
        Sel loseTaskManagerOf;

        Failover hold(String... specs) {
            for (String s : specs) {
                holds.add(Sel.parse(s));
            }
            return this;
        }

        Failover finished(String... specs) {
            for (String s : specs) {
                finished.add(Sel.parse(s));
            }
            return this;
        }

        Failover loseTaskManagerOf(String spec) {
            loseTaskManagerOf = Sel.parse(spec);
            return this;
        }
    }

    final String name;
    final String description;
    SourceKind source = SourceKind.SEQUENCE;
    /** shape is the job when it is not the linear src -> middle stages -> agg -> sink. */
    Shape shape;
    /** sinks maps each sink stage to how many times the job feeds it each record. */
    final Map<String, Integer> sinks = new LinkedHashMap<>(Map.of("sink", 1));
    /** files is how many input files (splits) a FILE source reads. */
    int files = 12;
    int sourceParallelism = 4;
    final List<Stage> middle = new ArrayList<>();
    Stage agg = new Stage("agg", Edge.HASH, 4);
    Stage sink = new Stage("sink", Edge.FORWARD, 4);
    long records = 10_000;
    int keys = 100;
    long minPauseMillis = 0;
    long recoveryTimeoutMillis = 10_000;
    final List<Failover> failovers = new ArrayList<>();
    /** pointTimeoutMillis bounds the wait for each failover point. */
    long pointTimeoutMillis = 60_000;
    /** dropSinkRecord makes the sink lose one record (self-test of the output check only). */
    boolean dropSinkRecord;
    /** failOnce: "stage:subtask@epoch" fails that subtask's first run in that epoch. */
    final List<String> failOnce = new ArrayList<>();

    Scenario(String name, String description) {
        this.name = name;
        this.description = description;
    }

    Scenario source(SourceKind kind, int parallelism) {
        source = kind;
        sourceParallelism = parallelism;
        return this;
    }

    Scenario map(String stageName, Edge edge, int parallelism) {
        middle.add(new Stage(stageName, edge, parallelism));
        return this;
    }

    Scenario agg(int parallelism) {
        agg = new Stage("agg", Edge.HASH, parallelism);
        return this;
    }

    Scenario sink(Edge edge, int parallelism) {
        sink = new Stage("sink", edge, parallelism);
        return this;
    }

    /** shape sets the job; sinks names its sink stages, each with its factor ("sinkA", 1, ...). */
    Scenario shape(Shape sh, Object... sinkFactors) {
        shape = sh;
        sinks.clear();
        for (int i = 0; i < sinkFactors.length; i += 2) {
            sinks.put((String) sinkFactors[i], (Integer) sinkFactors[i + 1]);
        }
        return this;
    }

    Scenario records(long n) {
        records = n;
        return this;
    }

    Scenario minPause(long millis) {
        minPauseMillis = millis;
        return this;
    }

    Scenario recoveryTimeout(long millis) {
        recoveryTimeoutMillis = millis;
        return this;
    }

    Scenario failover(Failover f) {
        failovers.add(f);
        return this;
    }

    Scenario failOnce(String spec) {
        failOnce.add(spec);
        return this;
    }

    static Failover at() {
        return new Failover();
    }

    /** basic is the common job: src(4) -rebalance-> map(4) -hash-> agg(4) -forward-> sink(4). */
    private static Scenario basic(String name, String description) {
        return new Scenario(name, description).map("map", Edge.REBALANCE, 4).agg(4).sink(Edge.FORWARD, 4);
    }

    private static final long HOUR = 3_600_000;

    /**
     * selfTests returns broken scenarios that the harness must reject, each with the start of the
     * HarnessFailure message it must give: a failover point that is never reached (the job
     * finishes more than the scenario expects) and a wrong job output.
     */
    static Map<Scenario, String> selfTests() {
        Scenario wrongPoint = basic("selftest-wrong-point", "expects map 0 alone finished, but map 0 and 1 finish")
                .failover(at().hold("map:2,3").finished("src:*", "map:0"));
        wrongPoint.pointTimeoutMillis = 5_000;
        Scenario wrongOutput = basic("selftest-wrong-output", "the sink loses one record")
                .failover(at().hold("map:2,3").finished("src:*", "map:0,1"));
        wrongOutput.dropSinkRecord = true;
        Map<Scenario, String> m = new LinkedHashMap<>();
        m.put(wrongPoint, "failover 1 point not reached");
        m.put(wrongOutput, "wrong output");
        return m;
    }

    /** all returns every scenario, by name, in run order. */
    static Map<String, Scenario> all() {
        List<Scenario> list = List.of(
                basic("rebalance-hash",
                        "batch-snapshot source; all-to-all edges; failover with half of map finished")
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                new Scenario("forward-pointwise",
                        "forward edge src->map (pointwise, one producer per consumer); failover with map 0,2 finished")
                        .map("map", Edge.FORWARD, 4).agg(2).sink(Edge.REBALANCE, 2)
                        .failover(at().hold("map:1,3").finished("src:*", "map:0,2")),
                new Scenario("rescale-pointwise",
                        "rescale edge src(4)->map(2) (two producers per consumer); failover with map 0 finished")
                        .map("map", Edge.RESCALE, 2).agg(3).sink(Edge.REBALANCE, 1)
                        .failover(at().hold("map:1").finished("src:*", "map:0")),
                new Scenario("hash-agg-partial",
                        "hash edges src(3)->map(4)->agg(4); failover with agg 0,1 and their forward consumers sink 0,1 finished")
                        .source(SourceKind.SEQUENCE, 3).map("map", Edge.HASH, 4).agg(4).sink(Edge.FORWARD, 4)
                        .failover(at().hold("agg:2,3").finished("src:*", "map:*", "agg:0,1", "sink:0,1")),
                new Scenario("auto-parallelism",
                        "map, agg and sink without parallelism (decided by the AdaptiveBatch scheduler); "
                                + "failover with all of map but subtask 0 finished, agg not initialized")
                        .map("map", Edge.REBALANCE, AUTO).agg(AUTO).sink(Edge.REBALANCE, AUTO)
                        .failover(at().hold("map:0").finished("src:*", "map:*-0")),
                basic("min-pause-trim",
                        "snapshot min-pause 1h: map 0,1 finish after the last snapshot point and are trimmed")
                        .minPause(HOUR)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                new Scenario("min-pause-released-producer",
                        "min-pause 1h with a forward edge: map 0,1 are trimmed and the source partitions they "
                                + "had consumed were already released")
                        .map("map", Edge.FORWARD, 4).agg(4).sink(Edge.FORWARD, 4).minPause(HOUR).recoveryTimeout(3_000)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                basic("lost-taskmanager",
                        "the TaskManager that ran src 0 is stopped during the failover (its partitions are lost)")
                        .recoveryTimeout(3_000)
                        .failover(at().hold("map:3").finished("src:*", "map:0,1,2").loseTaskManagerOf("src:0")),
                basic("task-failure-before-failover",
                        "map 1 fails once and is restarted (attempt 1) before the failover")
                        .failOnce("map:1@0")
                        .failover(at().hold("map:3").finished("src:*", "map:0,1,2")),
                basic("two-failovers",
                        "a failover after src finished, then a second one after map, agg 0,2,3 and sink 0,2,3 finished")
                        .failover(at().hold("map:*").finished("src:*"))
                        .failover(at().hold("agg:1").finished("src:*", "map:*", "agg:0,2,3", "sink:0,2,3")),
                basic("before-anything-finished",
                        "a failover while every source subtask is still running")
                        .failover(at().hold("src:*").finished()),
                basic("all-but-sink-finished",
                        "a failover when every vertex but the sink has finished")
                        .failover(at().hold("sink:*").finished("src:*", "map:*", "agg:*")),
                basic("no-batch-snapshot-source-unfinished",
                        "source coordinator without batch snapshot, unfinished at the failover: all of it reruns")
                        .source(SourceKind.NO_BATCH_SNAPSHOT, 4)
                        .failover(at().hold("src:2,3").finished("src:0,1")),
                basic("no-batch-snapshot-source-finished",
                        "source coordinator without batch snapshot, finished at the failover: it is deferred")
                        .source(SourceKind.NO_BATCH_SNAPSHOT, 4)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                basic("no-batch-snapshot-source-partition-lost",
                        "source coordinator without batch snapshot, finished, then a lost TaskManager takes "
                                + "some of its partitions: all of it reruns")
                        .source(SourceKind.NO_BATCH_SNAPSHOT, 4).recoveryTimeout(3_000)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1").loseTaskManagerOf("src:0")),
                basic("source-partly-done",
                        "batch-snapshot source half done: src 0,1 finished (they read every split), 2,3 held")
                        .failover(at().hold("src:2,3").finished("src:0,1")),
                new Scenario("union-sources",
                        "two sources (p2, p3) unioned into map(4) over rebalance edges; failover with map 0,1 finished")
                        .shape(c -> {
                            DataStream<Long> m = c.union("map", Edge.REBALANCE, 4,
                                    c.source("srcA", SourceKind.SEQUENCE, 2), c.source("srcB", SourceKind.SEQUENCE, 3));
                            c.sink(c.count(m, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 2)
                        .failover(at().hold("map:2,3").finished("srcA:*", "srcB:*", "map:0,1")),
                new Scenario("connect-keyed",
                        "two-input vertex: two sources connected and keyed by n mod K (hash edges into join(4)); "
                                + "failover with join 0,2 finished")
                        .shape(c -> {
                            DataStream<Long> j = c.connectKeyed(c.source("srcA", SourceKind.SEQUENCE, 2),
                                    c.source("srcB", SourceKind.SEQUENCE, 4), "join", 4);
                            c.sink(c.count(j, "agg", 3), "sink", Edge.REBALANCE, 2);
                        }, "sink", 2)
                        .failover(at().hold("join:1,3").finished("srcA:*", "srcB:*", "join:0,2")),
                new Scenario("connect-keyed-lost-taskmanager",
                        "as connect-keyed; the TaskManager that ran srcA 0 is stopped during the failover")
                        .recoveryTimeout(3_000)
                        .shape(c -> {
                            DataStream<Long> j = c.connectKeyed(c.source("srcA", SourceKind.SEQUENCE, 2),
                                    c.source("srcB", SourceKind.SEQUENCE, 4), "join", 4);
                            c.sink(c.count(j, "agg", 3), "sink", Edge.REBALANCE, 2);
                        }, "sink", 2)
                        .failover(at().hold("join:1,3").finished("srcA:*", "srcB:*", "join:0,2").loseTaskManagerOf("srcA:0")),
                new Scenario("broadcast-side",
                        "two-input vertex with a broadcast side: src(4) -rebalance-> join(3) <-broadcast- side(2); "
                                + "failover with join 0,1 finished")
                        .shape(c -> {
                            DataStream<Long> j = c.connectBroadcast(c.source("src", SourceKind.SEQUENCE, 4),
                                    c.source("side", SourceKind.SEQUENCE, 2), "join", 3);
                            c.sink(c.count(j, "agg", 2), "sink", Edge.FORWARD, 2);
                        }, "sink", 1)
                        .failover(at().hold("join:2").finished("src:*", "side:*", "join:0,1")),
                new Scenario("broadcast-edge",
                        "a broadcast edge src(2) -> map(3): every map subtask reads every record; map 0,2 finished")
                        .shape(c -> {
                            DataStream<Long> m = c.stage(c.source("src", SourceKind.SEQUENCE, 2), "map", Edge.BROADCAST, 3);
                            c.sink(c.count(m, "agg", 2), "sink", Edge.FORWARD, 2);
                        }, "sink", 3)
                        .failover(at().hold("map:1").finished("src:*", "map:0,2")),
                new Scenario("dataset-two-consumers",
                        "one dataset read by two vertices: src(4) -rebalance-> mapA(4) and mapB(4); "
                                + "failover with mapA all and mapB 0,1 finished")
                        .shape(c -> {
                            DataStream<Long> src = c.source("src", SourceKind.SEQUENCE, 4);
                            DataStream<Long> u = c.union("merge", Edge.REBALANCE, 4,
                                    c.stage(src, "mapA", Edge.REBALANCE, 4), c.stage(src, "mapB", Edge.REBALANCE, 4));
                            c.sink(c.count(u, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 2)
                        .failover(at().hold("mapB:2,3").finished("src:*", "mapA:*", "mapB:0,1")),
                new Scenario("dataset-two-consumers-min-pause",
                        "as dataset-two-consumers with min-pause 1h: the finishes after the source's are trimmed")
                        .minPause(HOUR).recoveryTimeout(3_000)
                        .shape(c -> {
                            DataStream<Long> src = c.source("src", SourceKind.SEQUENCE, 4);
                            DataStream<Long> u = c.union("merge", Edge.REBALANCE, 4,
                                    c.stage(src, "mapA", Edge.FORWARD, 4), c.stage(src, "mapB", Edge.FORWARD, 4));
                            c.sink(c.count(u, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 2)
                        .failover(at().hold("mapB:2,3").finished("src:*", "mapA:*", "mapB:0,1")),
                new Scenario("two-datasets-same-vertices",
                        "two datasets between the same two vertices: src(4) -forward-> map(4) and src -rebalance-> map "
                                + "(a self-union); failover with map 0,1 finished")
                        .shape(c -> {
                            DataStream<Long> m = c.twoDatasets(c.source("src", SourceKind.SEQUENCE, 4),
                                    Edge.FORWARD, Edge.REBALANCE, "map", 4);
                            c.sink(c.count(m, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 2)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                new Scenario("two-datasets-min-pause",
                        "as two-datasets-same-vertices with min-pause 1h: map 0,1 are trimmed")
                        .minPause(HOUR).recoveryTimeout(3_000)
                        .shape(c -> {
                            DataStream<Long> m = c.twoDatasets(c.source("src", SourceKind.SEQUENCE, 4),
                                    Edge.FORWARD, Edge.REBALANCE, "map", 4);
                            c.sink(c.count(m, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 2)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                new Scenario("fan-out-sinks",
                        "fan-out: map(4) feeds two keyed counts and two sinks (aggA(4) -> sinkA(4), aggB(2) -> sinkB(1)); "
                                + "late failover with only sinkB left")
                        .shape(c -> {
                            DataStream<Long> m = c.stage(c.source("src", SourceKind.SEQUENCE, 4), "map", Edge.REBALANCE, 4);
                            c.sink(c.count(m, "aggA", 4), "sinkA", Edge.FORWARD, 4);
                            c.sink(c.count(m, "aggB", 2), "sinkB", Edge.REBALANCE, 1);
                        }, "sinkA", 1, "sinkB", 1)
                        .failover(at().hold("sinkB:0").finished("src:*", "map:*", "aggA:*", "sinkA:*", "aggB:*")),
                new Scenario("rescale-uneven",
                        "a chain of rescale edges of uneven parallelism src(6) -> m1(4) -> m2(3) -> m3(5); "
                                + "failover with m2 0,2 finished (and the m3 subtasks that read only them)")
                        .shape(c -> {
                            DataStream<Long> m = c.stage(c.source("src", SourceKind.SEQUENCE, 6), "m1", Edge.RESCALE, 4);
                            m = c.stage(c.stage(m, "m2", Edge.RESCALE, 3), "m3", Edge.RESCALE, 5);
                            c.sink(c.count(m, "agg", 4), "sink", Edge.FORWARD, 4);
                        }, "sink", 1)
                        .failover(at().hold("m2:1").finished("src:*", "m1:*", "m2:0,2", "m3:0,1,4")),
                new Scenario("auto-pointwise",
                        "adaptive parallelism over pointwise edges: src(4) -rescale-> m1 -rescale-> m2, m1 and m2 "
                                + "decided by the scheduler (2.x balances the ranges); all of m2 but 0 finished")
                        .records(20_000)
                        .shape(c -> {
                            DataStream<Long> m = c.stage(c.source("src", SourceKind.SEQUENCE, 4), "m1", Edge.RESCALE, AUTO);
                            m = c.stage(m, "m2", Edge.RESCALE, AUTO);
                            c.sink(c.count(m, "agg", 2), "sink", Edge.FORWARD, 2);
                        }, "sink", 1)
                        .failover(at().hold("m2:0").finished("src:*", "m1:*", "m2:*-0")),
                new Scenario("high-parallelism",
                        "parallelism 8 everywhere (8 splits): src(8) -rebalance-> map(8) -hash-> agg(8) -> sink(8); "
                                + "map 0-4 finished")
                        .records(20_000).source(SourceKind.SEQUENCE, 8)
                        .map("map", Edge.REBALANCE, 8).agg(8).sink(Edge.FORWARD, 8)
                        .failover(at().hold("map:5,6,7").finished("src:*", "map:0,1,2,3,4")),
                basic("file-source",
                        "a FileSource over 12 files (12 splits; batch snapshots from Flink 2.0 only): src finished, "
                                + "map 0,1 finished")
                        .source(SourceKind.FILE, 4)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                basic("file-source-partly-done",
                        "a FileSource over 12 files: src 0,1 read every split and finished, 2,3 held")
                        .source(SourceKind.FILE, 4)
                        .failover(at().hold("src:2,3").finished("src:0,1")),
                basic("file-source-partition-lost",
                        "a FileSource, finished; the TaskManager of src 0 is stopped during the failover")
                        .source(SourceKind.FILE, 4).recoveryTimeout(3_000)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1").loseTaskManagerOf("src:0")),
                basic("datagen-source",
                        "a DataGeneratorSource (batch snapshots): src finished, map 0,1 finished")
                        .source(SourceKind.DATAGEN, 4)
                        .failover(at().hold("map:2,3").finished("src:*", "map:0,1")),
                basic("datagen-source-partly-done",
                        "a DataGeneratorSource: src 0,1 finished, 2,3 held")
                        .source(SourceKind.DATAGEN, 4)
                        .failover(at().hold("src:2,3").finished("src:0,1")));
        Map<String, Scenario> m = new LinkedHashMap<>();
        for (Scenario s : list) {
            m.put(s.name, s);
        }
        return m;
    }
}
