package flink

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

func TestShuffleOf(t *testing.T) {
	for _, c := range []struct {
		config   map[string]string
		snapshot string
		want     Shuffle
	}{
		{nil, "", ShuffleNetty},
		{nil, "org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot", ShuffleNetty},
		{nil, "org.apache.celeborn.plugin.flink.CelebornShuffleMasterSnapshot", ShuffleCeleborn},
		{map[string]string{keyShuffleFactory: "org.apache.celeborn.plugin.flink.RemoteShuffleServiceFactory"}, "", ShuffleCeleborn},
		{map[string]string{keyShuffleFactory: "com.example.Shuffle"}, "", ShuffleOther},
		{map[string]string{keyExchangeMode: "ALL_EXCHANGES_HYBRID_FULL"}, "", ShuffleHybridLocal},
		{map[string]string{keyExchangeMode: "ALL_EXCHANGES_HYBRID_SELECTIVE", keyHybridTiers: "org.apache.celeborn.plugin.flink.tiered.CelebornTierFactory"}, "", ShuffleHybridExternal},
	} {
		got := ShuffleOf(c.config, c.snapshot)
		if got != c.want {
			t.Errorf("ShuffleOf(%v, %q) = %s, want %s", c.config, c.snapshot, got, c.want)
		}
	}
	if ShuffleNetty.SurvivesLostTaskManager() || !ShuffleCeleborn.SurvivesLostTaskManager() || !ShuffleHybridExternal.SurvivesLostTaskManager() {
		t.Error("SurvivesLostTaskManager: only the remote shuffles keep partitions")
	}
	if ShuffleHybridLocal.Records() || !ShuffleHybridExternal.Records() {
		t.Error("Records: hybrid with local tiers records nothing, external-only does")
	}
}

func TestSourceKind(t *testing.T) {
	const (
		seq  = "org.apache.flink.api.connector.source.lib.NumberSequenceSource"
		file = "org.apache.flink.connector.file.src.FileSource"
		gen  = "org.apache.flink.connector.datagen.source.DataGeneratorSource"
		// legacy is the SourceFunction-based generator: no split enumerator at all.
		legacy = "org.apache.flink.streaming.api.functions.source.datagen.DataGeneratorSource"
	)
	for _, c := range []struct {
		version string
		srcs    []string
		want    string
		assumed bool
	}{
		{"1.20", []string{seq}, format.CoordinatorBatchSnapshot, false},
		{"1.20", []string{gen}, format.CoordinatorBatchSnapshot, false},
		{"1.20", []string{file}, format.CoordinatorBatchSnapshot, false},
		{"1.20", []string{legacy}, format.CoordinatorNoBatchSnapshot, false},
		{"2.x", []string{file}, format.CoordinatorBatchSnapshot, false},
		{"2.x", []string{seq, file}, format.CoordinatorBatchSnapshot, false},
		{"1.20", []string{seq, file}, format.CoordinatorBatchSnapshot, false},
		{"1.20", []string{seq, legacy}, format.CoordinatorNoBatchSnapshot, false},
		{"1.20", []string{"com.example.MySource", legacy}, format.CoordinatorNoBatchSnapshot, false},
		{"1.20", []string{"com.example.MySource", seq}, format.CoordinatorNoBatchSnapshot, true},
		{"2.x", []string{"com.example.MySource"}, format.CoordinatorNoBatchSnapshot, true},
		{"2.x", nil, "", false},
	} {
		kind, assumed := SourceKind(c.version, c.srcs)
		if kind != c.want || (assumed != "") != c.assumed {
			t.Errorf("SourceKind(%s, %v) = %q, %q; want %q, assumed %v", c.version, c.srcs, kind, assumed, c.want, c.assumed)
		}
	}
}
