package flink

// Reader returns a new Reader of the log's files, to read its records
// (with every decoded field) again. The caller closes it.
func (l *Log) Reader() (*Reader, error) { return NewReader(l.fsys) }
