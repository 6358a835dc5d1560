package io.github.jobevent.flinkhash;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.CoMapFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamingJobGraphGenerator;
import org.apache.flink.util.Collector;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.OutputTag;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * HashGen writes random DataStream batch topologies as Flink's HA store keeps them, together with
 * the JobVertexIDs Flink assigns, so that jobevent's Go reader and its port of
 * StreamGraphHasherV2 and the chaining rules can be checked against real Flink without a JVM.
 *
 * <pre>
 *   HashGen OUTDIR COUNT SEED
 * </pre>
 *
 * For each case it writes {@code OUTDIR/case-NNNN/}:
 *
 * <ul>
 *   <li>Flink 1.20: {@code submittedJobGraph<hex>}, {@code InstantiationUtil.serializeObject} of
 *       the JobGraph (what {@code FileSystemStateStorageHelper} stores);
 *   <li>Flink 2.x: {@code submittedExecutionPlan<hex>}, the same of the StreamGraph, given a job
 *       id and with its user-defined objects serialized, as 2.3.0's {@code LocalExecutor} submits
 *       it ({@code PipelineExecutorUtils.getStreamGraph}, then {@code
 *       serializeUserDefinedInstances});
 *   <li>{@code truth.json}: the job id, the order in which job vertices were finished (2.x builds
 *       the JobGraph progressively with its AdaptiveGraphManager, which the ids depend on), and
 *       every JobVertex Flink built: id, name, parallelism and inputs (producer, dataset id,
 *       distribution pattern, ship strategy).
 * </ul>
 *
 * A topology that Flink rejects (for instance a forward edge between unequal parallelisms) is
 * skipped and another one drawn; the case numbers stay contiguous.
 */
public final class HashGen {
    private HashGen() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: HashGen OUTDIR COUNT SEED");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        Random rnd = new Random(seed);
        boolean v2 = isFlink2();
        int made = 0;
        int skipped = 0;
        while (made < count) {
            long caseSeed = rnd.nextLong();
            try {
                Path dir = out.resolve(String.format("case-%04d", made));
                writeCase(dir, new Random(caseSeed), v2);
                made++;
            } catch (Exception e) {
                skipped++;
                if (skipped > 10 * count + 100) {
                    throw e;
                }
            }
        }
        System.out.printf("HashGen: %d cases (%d topologies rejected by Flink) in %s%n", made, skipped, out);
    }

    static boolean isFlink2() {
        try {
            Class.forName("org.apache.flink.streaming.api.graph.AdaptiveGraphManager");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static void writeCase(Path dir, Random rnd, boolean v2) throws Exception {
        StreamGraph sg = Topology.build(rnd);
        String hex = Long.toHexString(rnd.nextLong() & 0xffffffffffffL);
        StringBuilder truth = new StringBuilder();
        byte[] file;
        String name;
        if (v2) {
            Executor direct = Runnable::run;
            // The client gives the StreamGraph its job id before submitting it.
            StreamGraph.class.getMethod("setJobId", JobID.class).invoke(sg, JobID.generate());
            Method ser = StreamGraph.class.getMethod("serializeUserDefinedInstances");
            ser.invoke(sg);
            file = InstantiationUtil.serializeObject(sg);
            name = "submittedExecutionPlan" + hex;
            ClassLoader cl = HashGen.class.getClassLoader();
            StreamGraph copy = InstantiationUtil.deserializeObject(file, cl);
            StreamGraph.class
                    .getMethod("deserializeUserDefinedInstances", ClassLoader.class, Executor.class)
                    .invoke(copy, cl, direct);
            Class<?> mgrClass = Class.forName("org.apache.flink.streaming.api.graph.AdaptiveGraphManager");
            Constructor<?> ctor = mgrClass.getConstructor(ClassLoader.class, StreamGraph.class, Executor.class);
            Object mgr = ctor.newInstance(cl, copy, direct);
            Method getJobGraph = mgrClass.getMethod("getJobGraph");
            Method finished = mgrClass.getMethod("onJobVertexFinished", JobVertexID.class);
            JobGraph jg = (JobGraph) getJobGraph.invoke(mgr);
            List<JobVertexID> order = new ArrayList<>();
            Set<JobVertexID> done = new HashSet<>();
            while (true) {
                List<JobVertexID> open = new ArrayList<>();
                for (JobVertex v : jg.getVertices()) {
                    if (!done.contains(v.getID())) {
                        open.add(v.getID());
                    }
                }
                if (open.isEmpty()) {
                    break;
                }
                JobVertexID next = open.get(rnd.nextInt(open.size()));
                done.add(next);
                order.add(next);
                finished.invoke(mgr, next);
            }
            truthJSON(truth, jg, order, "2.x");
        } else {
            JobGraph jg = StreamingJobGraphGenerator.createJobGraph(sg);
            file = InstantiationUtil.serializeObject(jg);
            name = "submittedJobGraph" + hex;
            truthJSON(truth, jg, List.of(), "1.20");
        }
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), file);
        Files.write(dir.resolve("truth.json"), truth.toString().getBytes(StandardCharsets.UTF_8));
    }

    static void truthJSON(StringBuilder b, JobGraph jg, List<JobVertexID> order, String version) {
        b.append("{\"version\":\"").append(version).append("\",\"job\":\"").append(jg.getJobID()).append("\",");
        b.append("\"finish_order\":[");
        for (int i = 0; i < order.size(); i++) {
            b.append(i > 0 ? "," : "").append('"').append(order.get(i)).append('"');
        }
        b.append("],\"vertices\":[");
        boolean first = true;
        for (JobVertex v : jg.getVertices()) {
            b.append(first ? "" : ",").append("\n{\"id\":\"").append(v.getID()).append("\",\"name\":");
            first = false;
            quote(b, v.getName());
            b.append(",\"parallelism\":").append(v.getParallelism()).append(",\"inputs\":[");
            for (int i = 0; i < v.getInputs().size(); i++) {
                JobEdge e = v.getInputs().get(i);
                b.append(i > 0 ? "," : "").append("{\"producer\":\"").append(e.getSource().getProducer().getID())
                        .append("\",\"dataset\":\"").append(e.getSourceId())
                        .append("\",\"pattern\":\"").append(e.getDistributionPattern())
                        .append("\",\"ship\":");
                quote(b, e.getShipStrategyName());
                b.append('}');
            }
            b.append("]}");
        }
        b.append("]}\n");
    }

    static void quote(StringBuilder b, String s) {
        if (s == null) {
            b.append("null");
            return;
        }
        b.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }

    /** Topology draws one random batch job. */
    static final class Topology {
        final Random rnd;
        final StreamExecutionEnvironment env;
        final int defaultParallelism;
        final List<DataStream<Long>> open = new ArrayList<>();
        final Map<DataStream<Long>, Integer> par = new HashMap<>();
        int uids;
        int names;

        Topology(Random rnd) {
            this.rnd = rnd;
            Map<String, String> m = new HashMap<>();
            m.put("execution.runtime-mode", "BATCH");
            m.put("jobmanager.scheduler", "AdaptiveBatch");
            m.put("execution.batch.job-recovery.enabled", "true");
            if (rnd.nextInt(10) == 0) {
                m.put("pipeline.operator-chaining.enabled", "false");
            }
            if (rnd.nextInt(6) == 0) {
                m.put("pipeline.operator-chaining.chain-operators-with-different-max-parallelism", "false");
            }
            env = new StreamExecutionEnvironment(Configuration.fromMap(m));
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
            defaultParallelism = rnd.nextBoolean() ? -1 : 1 + rnd.nextInt(4);
            env.setParallelism(defaultParallelism);
        }

        static StreamGraph build(Random rnd) {
            Topology t = new Topology(rnd);
            int sources = 1 + t.rnd.nextInt(3);
            for (int i = 0; i < sources; i++) {
                SingleOutputStreamOperator<Long> s = t.env.fromSequence(0, 99).name(t.name("src"));
                t.decorate(s, true);
            }
            int ops = 2 + t.rnd.nextInt(8);
            for (int i = 0; i < ops; i++) {
                t.step();
            }
            for (DataStream<Long> s : new ArrayList<>(t.open)) {
                t.sink(s);
            }
            return t.env.getStreamGraph();
        }

        String name(String kind) {
            return kind + "-" + (names++);
        }

        DataStream<Long> pick() {
            return open.get(rnd.nextInt(open.size()));
        }

        /** decorate sets a random parallelism, uid, chaining and slot sharing group, and adds s to the open streams. */
        void decorate(SingleOutputStreamOperator<Long> s, boolean canSetParallelism) {
            int p = defaultParallelism;
            if (canSetParallelism && rnd.nextInt(3) == 0) {
                p = 1 + rnd.nextInt(4);
                s.setParallelism(p);
            }
            if (rnd.nextInt(8) == 0) {
                s.setMaxParallelism(64 << rnd.nextInt(3));
            }
            if (rnd.nextInt(4) == 0) {
                s.uid("uid-" + (uids++));
            }
            switch (rnd.nextInt(12)) {
                case 0:
                    s.disableChaining();
                    break;
                case 1:
                    s.startNewChain();
                    break;
                case 2:
                    s.slotSharingGroup(rnd.nextBoolean() ? "a" : "b");
                    break;
                default:
            }
            open.add(s);
            par.put(s, p);
        }

        void step() {
            DataStream<Long> in = pick();
            int p = par.getOrDefault(in, defaultParallelism);
            switch (rnd.nextInt(9)) {
                case 0: // a chainable map
                    decorate(in.map(new Inc()).name(name("map")), true);
                    break;
                case 1: { // keyBy and reduce
                    decorate(in.keyBy(new Mod()).reduce(new Sum()).name(name("reduce")), true);
                    break;
                }
                case 2:
                    decorate(in.rebalance().map(new Inc()).name(name("rebalanced")), true);
                    break;
                case 3:
                    decorate(in.rescale().map(new Inc()).name(name("rescaled")), true);
                    break;
                case 4:
                    decorate(in.broadcast().map(new Inc()).name(name("broadcast")), true);
                    break;
                case 5: { // forward at the producer's parallelism
                    SingleOutputStreamOperator<Long> f = in.forward().map(new Inc()).name(name("forward"));
                    if (p > 0) {
                        f.setParallelism(p);
                    }
                    decorate(f, false);
                    break;
                }
                case 6: { // a union with another open stream
                    DataStream<Long> other = pick();
                    decorate(in.union(other).map(new Inc()).name(name("union")), true);
                    break;
                }
                case 7: { // a side output
                    OutputTag<Long> tag = new OutputTag<>(name("side"), Types.LONG);
                    SingleOutputStreamOperator<Long> main = in.process(new Split(tag)).name(name("split"));
                    decorate(main, true);
                    decorate(main.getSideOutput(tag).map(new Inc()).name(name("side-map")), true);
                    break;
                }
                default: { // a two-input operator
                    DataStream<Long> other = pick();
                    SingleOutputStreamOperator<Long> co = in.connect(other).keyBy(new Mod(), new Mod())
                            .map(new Both()).name(name("co"));
                    decorate(co, true);
                    break;
                }
            }
            if (rnd.nextInt(3) != 0) {
                open.remove(in); // consumed; otherwise it fans out again later or goes to a sink
            }
        }

        void sink(DataStream<Long> s) {
            var sink = s.sinkTo(new DiscardingSink<>()).name(name("sink"));
            if (rnd.nextInt(3) == 0) {
                sink.setParallelism(1 + rnd.nextInt(4));
            }
            if (rnd.nextInt(4) == 0) {
                sink.uid("uid-" + (uids++));
            }
        }
    }

    static final class Inc implements MapFunction<Long, Long> {
        @Override
        public Long map(Long v) {
            return v + 1;
        }
    }

    static final class Mod implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long v) {
            return v % 7;
        }
    }

    static final class Sum implements ReduceFunction<Long> {
        @Override
        public Long reduce(Long a, Long b) {
            return a + b;
        }
    }

    static final class Both implements CoMapFunction<Long, Long, Long> {
        @Override
        public Long map1(Long v) {
            return v;
        }

        @Override
        public Long map2(Long v) {
            return -v;
        }
    }

    static final class Split extends ProcessFunction<Long, Long> {
        final OutputTag<Long> tag;

        Split(OutputTag<Long> tag) {
            this.tag = tag;
        }

        @Override
        public void processElement(Long v, Context ctx, Collector<Long> out) throws IOException {
            if (v % 2 == 0) {
                out.collect(v);
            } else {
                ctx.output(tag, v);
            }
        }
    }
}
