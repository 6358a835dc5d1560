package io.github.jobevent.flinkharness;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import java.lang.reflect.Method;

/**
 * Probe is a pass-through operator placed in every job vertex of a scenario's job. It records the
 * run (JobVertexID, subtask, attempt, execution attempt id, failover epoch) when the task opens,
 * holds the task at the scenario's gate, fails it once if the scenario says so (at the end of its
 * input, so that its partial output is discarded), and, in the sink, keeps the output.
 *
 * <p>Operators of a chain open from the tail to the head, so a probe at the tail of a chain holds
 * the task before its head (a source reader, say) has read anything.
 */
final class Probe<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {
    private static final long serialVersionUID = 1L;

    private final String stage;
    private final boolean sink;
    private transient Registry.Run run;

    Probe(String stage, boolean sink) {
        this.stage = stage;
        this.sink = sink;
        chainAlways(this);
    }

    /**
     * chainAlways lets the probe chain to its predecessor. Flink 1.20's operators default to HEAD
     * and have setChainingStrategy; Flink 2 dropped that method and defaults to ALWAYS.
     */
    private static void chainAlways(AbstractStreamOperator<?> op) {
        try {
            Method m = AbstractStreamOperator.class.getMethod("setChainingStrategy", ChainingStrategy.class);
            m.invoke(op, ChainingStrategy.ALWAYS);
        } catch (NoSuchMethodException e) {
            // Flink 2: ALWAYS is the default.
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("set chaining strategy", e);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        Environment env = getContainingTask().getEnvironment();
        int subtask = env.getTaskInfo().getIndexOfThisSubtask();
        run = Registry.started(
                stage,
                env.getJobVertexId().toString(),
                subtask,
                env.getTaskInfo().getAttemptNumber(),
                env.getExecutionId().toString());
        if (sink) {
            Registry.sinkOpened(stage, subtask);
        }
        Registry.gate(run);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void processElement(StreamRecord<T> element) throws Exception {
        if (sink) {
            Tuple2<Long, Long> t = (Tuple2<Long, Long>) element.getValue();
            Registry.sinkRecord(stage, run.subtask, t.f0, t.f1);
        }
        output.collect(element);
    }

    @Override
    public void finish() throws Exception {
        if (Registry.shouldFail(run)) {
            throw new InjectedFailure(stage + " subtask " + run.subtask + " attempt " + run.attempt);
        }
        super.finish();
        run.finished = true;
    }

    /** InjectedFailure is the task failure a scenario asks for. */
    static final class InjectedFailure extends Exception {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String what) {
            super("injected failure: " + what);
        }
    }
}
