package format

import "github.com/parquet-go/parquet-go"

var rowMajor = false

func (enc *segmentEncoder) rowBatch(events []Event) {
	for c := range enc.cols {
		enc.cols[c] = enc.cols[c][:0]
	}
	var empty parquet.Value
	empty.SetDefinitionLevel(defEmpty)
	c := &enc.cols
	for i := range events {
		e := &events[i]
		set := enc.sets[i]
		c[colSeq] = append(c[colSeq], parquet.Int64Value(e.Seq))
		c[colTime] = append(c[colTime], parquet.Int64Value(enc.nano[i]))
		c[colEpoch] = append(c[colEpoch], parquet.Int32Value(e.Epoch))
		c[colKind] = append(c[colKind], strValue(string(e.Kind)))
		c[colJob] = append(c[colJob], strValue(e.Job))
		for col := colVertexID; col <= colEdgePattern; col++ {
			if !set.has(fieldGraph) {
				c[col] = append(c[col], parquet.Value{})
				continue
			}
			n := listCount(e, col)
			if n == 0 {
				c[col] = append(c[col], empty)
			}
			for j := range n {
				v := listValue(e, col, j, nil)
				v.SetDefinitionLevel(defElement)
				if j > 0 {
					v.SetRepetitionLevel(1)
				}
				c[col] = append(c[col], v)
			}
		}
		for _, col := range [...]int{colMaster, colRecovering, colVertex, colSubtask, colParallelism, colAttempt, colWorker, colRecordsIn, colRecordsOut, colBytesIn, colBytesOut, colError, colReason, colStatus} {
			if !set.has(columnFields[col]) {
				c[col] = append(c[col], parquet.Value{})
				continue
			}
			v := flatValue(e, col)
			v.SetDefinitionLevel(1)
			c[col] = append(c[col], v)
		}
		for _, col := range [...]int{colPartitionConsumer, colPartitionBytes, colPartitionRecords, colSubtasksVertex, colSubtasksSubtask, colCoordinatorsVertex, colCoordinatorsState} {
			f := columnFields[col]
			if !set.has(f) {
				c[col] = append(c[col], parquet.Value{})
				continue
			}
			n := listCount(e, col)
			switch {
			case n < 0:
				c[col] = append(c[col], parquet.Value{})
				continue
			case n == 0:
				c[col] = append(c[col], empty)
				continue
			}
			if f == fieldCoordinators {
				enc.keys = sortedKeysInto(enc.keys[:0], e.Coordinators)
			}
			for j := range n {
				v := listValue(e, col, j, enc.keys)
				v.SetDefinitionLevel(defElement)
				if j > 0 {
					v.SetRepetitionLevel(1)
				}
				c[col] = append(c[col], v)
			}
		}
	}
}
