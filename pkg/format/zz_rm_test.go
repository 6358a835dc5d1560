package format

import "testing"

func BenchmarkEncodeRowMajor(b *testing.B) {
	rowMajor = true
	defer func() { rowMajor = false }()
	BenchmarkEncodeSegment(b)
}
func TestRowMajorRoundTrip(t *testing.T) {
	rowMajor = true
	defer func() { rowMajor = false }()
	TestSegment_RoundTrip(t)
	TestSegment_ReadBatches(t)
}
