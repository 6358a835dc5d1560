package drill

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []Fault
	}{
		{"all", Faults()},
		{"double,master", []Fault{FaultMaster, FaultDouble}},
		{" torn-tail , worker,worker", []Fault{FaultWorker, FaultTornTail}},
		{"slow-workers,all", Faults()},
	} {
		got, err := ParseFaults(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFaults(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", " , ", "master,crash", "Master"} {
		if _, err := ParseFaults(in); !errors.Is(err, ErrUnknownFault) {
			t.Errorf("ParseFaults(%q) error = %v, want ErrUnknownFault", in, err)
		}
	}
}
