package flink

import "strings"

// Shuffle is how a Flink job's blocking results are stored, which decides
// whether they outlive a lost TaskManager and whether batch job recovery
// records anything at all.
type Shuffle string

// The shuffles jobevent tells apart.
const (
	// ShuffleNetty is Flink's default: result partitions live on the
	// TaskManagers that produced them.
	ShuffleNetty Shuffle = "netty"
	// ShuffleCeleborn is Apache Celeborn's remote shuffle: partitions live
	// on Celeborn workers and survive a lost TaskManager.
	ShuffleCeleborn Shuffle = "celeborn"
	// ShuffleHybridExternal is Flink 2.x hybrid shuffle with only the
	// external (remote storage) tier: partitions survive a lost TaskManager.
	ShuffleHybridExternal Shuffle = "hybrid_external"
	// ShuffleHybridLocal is hybrid shuffle with memory or disk tiers: its
	// shuffle master supports no batch snapshot, so Flink records no
	// job-events.
	ShuffleHybridLocal Shuffle = "hybrid_local"
	// ShuffleOther is a shuffle service factory jobevent does not know.
	ShuffleOther Shuffle = "other"
)

// Configuration keys read by ShuffleOf; part of Flink's configuration.
const (
	keyShuffleFactory = "shuffle-service-factory.class"
	keyHybridTiers    = "taskmanager.network.hybrid-shuffle.external-remote-tier-factory.class"
	keyExchangeMode   = "execution.batch-shuffle-mode"
)

// ShuffleOf derives the shuffle from a job's configuration (HA job config
// or REST JobManager config) and the class of the shuffle master snapshot
// its finished records carry ("" when none is known): a Celeborn snapshot
// (a class of org.apache.celeborn) means Celeborn whatever the
// configuration says.
func ShuffleOf(config map[string]string, snapshotClass string) Shuffle {
	if strings.HasPrefix(snapshotClass, "org.apache.celeborn.") {
		return ShuffleCeleborn
	}
	f := config[keyShuffleFactory]
	switch {
	case strings.Contains(strings.ToLower(f), "celeborn"):
		return ShuffleCeleborn
	case f != "" && f != "org.apache.flink.runtime.io.network.NettyShuffleServiceFactory":
		return ShuffleOther
	}
	if mode := config[keyExchangeMode]; strings.HasPrefix(mode, "ALL_EXCHANGES_HYBRID") {
		// TieredInternalShuffleMaster supports batch snapshots only when
		// an external remote tier factory replaces every other tier.
		if config[keyHybridTiers] != "" {
			return ShuffleHybridExternal
		}
		return ShuffleHybridLocal
	}
	return ShuffleNetty
}

// SurvivesLostTaskManager reports whether the shuffle keeps result
// partitions off the TaskManagers, so that a lost TaskManager loses none.
func (s Shuffle) SurvivesLostTaskManager() bool {
	return s == ShuffleCeleborn || s == ShuffleHybridExternal
}

// Records reports whether Flink's batch job recovery records job-events
// with this shuffle (its shuffle master supports batch snapshots).
func (s Shuffle) Records() bool { return s != ShuffleHybridLocal && s != ShuffleOther }
