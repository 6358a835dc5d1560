package replay

import "runtime"

// A plan of many rows has its JSON rows formatted in blocks on several
// goroutines and written in order: formatting is most of the cost of
// printing a large dry run, which otherwise runs on one core after the
// fold has left the others idle.
const (
	// jsonBlockRows is how many rows a block holds, about 250 KB of JSON,
	// and jsonBlockBytes the buffer a block is formatted into: rows with
	// reasons are longer than most, and the buffer grows for them.
	jsonBlockRows  = 2048
	jsonBlockBytes = 2048 * 160
	// maxJSONWorkers bounds the goroutines that format blocks.
	maxJSONWorkers = 4
	// jsonBlocksAhead is how many formatted blocks each of them keeps
	// waiting to be written.
	jsonBlocksAhead = 2
)

// rowBlock is a run of the rows of one vertex: its subtasks first to
// end-1.
type rowBlock struct {
	v, first, end int32
}

// formatted is a block's rows as JSON: each opened as a later element of
// the array is (planJSON.open), rows of them.
type formatted struct {
	buf  []byte
	rows int
	sum  Summary
}

// writeRows writes the subtasks array of the plan's rows to j, as
// planJSON.rows writes the rows of eachRow, and returns their summary.
func (p *planner) writeRows(j *planJSON) Summary {
	var blocks []rowBlock
	for v := range p.t.ids {
		n := p.s.vs[v].parallelism
		for i := int32(0); i < n; i += jsonBlockRows {
			blocks = append(blocks, rowBlock{v: int32(v), first: i, end: min(i+jsonBlockRows, n)})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), maxJSONWorkers, len(blocks))
	if workers < 2 {
		return j.rows(func(row func(*SubtaskPlan)) Summary {
			return p.eachRow(func(_ int32, r *SubtaskPlan) { row(r) })
		})
	}
	// Worker g formats blocks g, g+workers, ... in turn; the blocks are
	// written in order from the workers' queues in turn.
	queues := make([]chan formatted, workers)
	free := make(chan []byte, workers*(jsonBlocksAhead+1))
	for g := range queues {
		queues[g] = make(chan formatted, jsonBlocksAhead)
		go p.formatBlocks(blocks, g, workers, j.names, free, queues[g])
	}
	var sum Summary
	k := 0
	for b := range blocks {
		f := <-queues[b%workers]
		sum.add(f.sum)
		if f.rows == 0 {
			recycle(free, f.buf)
			continue
		}
		if k == 0 {
			f.buf[0] = '[' // the first row opens the array: open(0)
		}
		k += f.rows
		j.flush()
		recycle(free, j.out.write(f.buf))
	}
	j.endArray(k)
	return sum
}

// formatBlocks formats blocks g, g+step, ... into buffers from free, or
// new ones, and sends them on out in order; it closes out at the end.
func (p *planner) formatBlocks(blocks []rowBlock, g, step int, names map[string]string, free <-chan []byte, out chan<- formatted) {
	defer close(out)
	var sets reasonSets
	j := planJSON{names: names}
	for b := g; b < len(blocks); b += step {
		select {
		case j.buf = <-free:
			j.buf = j.buf[:0]
		default:
			j.buf = make([]byte, 0, jsonBlockBytes)
		}
		f := formatted{}
		bl := blocks[b]
		f.sum = p.rowsOf(&sets, bl.v, bl.first, bl.end, func(_ int32, r *SubtaskPlan) {
			j.open(1)
			j.subtask(r)
			f.rows++
		})
		f.buf = j.buf
		out <- f
	}
}

// recycle puts buf back in free, or drops it when free is full.
func recycle(free chan<- []byte, buf []byte) {
	select {
	case free <- buf:
	default:
	}
}
