package io.github.jobevent.flinkharness;

import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;
import java.util.List;

/**
 * NoBatchSnapshotSource is a FLIP-27 number sequence source whose split enumerator does not
 * implement SupportsBatchSnapshot, so its SourceCoordinator does not support batch snapshots: a
 * recovering JobMaster reruns every subtask of its vertex when any of them is unfinished, and
 * defers the vertex when all are finished.
 */
final class NoBatchSnapshotSource extends NumberSequenceSource {
    private static final long serialVersionUID = 1L;

    NoBatchSnapshotSource(long from, long to) {
        super(from, to);
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> ctx) {
        return new Plain<>(super.createEnumerator(ctx));
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> restoreEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> ctx, Collection<NumberSequenceSplit> state) {
        return new Plain<>(super.restoreEnumerator(ctx, state));
    }

    /** Plain delegates every call and implements nothing else. */
    private static final class Plain<S extends SourceSplit, C> implements SplitEnumerator<S, C> {
        private final SplitEnumerator<S, C> d;

        Plain(SplitEnumerator<S, C> d) {
            this.d = d;
        }

        @Override
        public void start() {
            d.start();
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
            d.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<S> splits, int subtaskId) {
            d.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            d.addReader(subtaskId);
        }

        @Override
        public C snapshotState(long checkpointId) throws Exception {
            return d.snapshotState(checkpointId);
        }

        @Override
        public void close() throws IOException {
            d.close();
        }
    }
}
