package loggen

import (
	"fmt"
	"math/rand"

	"github.com/jobevent/jobevent/pkg/format"
)

// randomGraph builds the job graph of o: sources first, then vertices that
// read one or two earlier vertices.
func randomGraph(rng *rand.Rand, o Options) *format.Graph {
	g := &format.Graph{}
	for i := 0; i < o.Vertices; i++ {
		v := format.Vertex{
			ID: fmt.Sprintf("v%d", i), Operator: "map",
			Parallelism: 1 + rng.Int31n(o.MaxParallelism), MaxParallelism: o.MaxParallelism,
			Coordinator: format.CoordinatorNone,
		}
		if i < o.Sources {
			v.Operator = "source"
			switch rng.Intn(4) {
			case 0, 1:
				v.Coordinator = format.CoordinatorBatchSnapshot
			case 2:
				v.Coordinator = format.CoordinatorNoBatchSnapshot
			}
		} else {
			if rng.Float64() < o.AutoFraction {
				v.Parallelism = 0
			}
			for _, from := range producersFor(rng, i) {
				pattern := format.PatternAllToAll
				if rng.Intn(5) < 2 {
					pattern = format.PatternPointwise
				}
				g.Edges = append(g.Edges, format.Edge{From: fmt.Sprintf("v%d", from), To: v.ID, Pattern: pattern})
			}
		}
		g.Vertices = append(g.Vertices, v)
	}
	return g
}

// producersFor picks one or two distinct earlier vertices for vertex i,
// preferring recent ones so that graphs are deep rather than flat.
func producersFor(rng *rand.Rand, i int) []int {
	first := i - 1 - rng.Intn(min(i, 2))
	if i < 2 || rng.Intn(10) >= 3 {
		return []int{first}
	}
	second := rng.Intn(i)
	if second == first {
		return []int{first}
	}
	return []int{first, second}
}
