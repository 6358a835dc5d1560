package blob

import (
	"context"
	"testing"
)

func TestLog_RequestCancel(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, uniqueMem("cancel-test")+"?prefix=job/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ok, err := l.CancelRequested(ctx); err != nil || ok {
		t.Fatalf("CancelRequested before = %v, %v; want false, nil", ok, err)
	}
	for i := 0; i < 2; i++ { // asking twice is fine
		if err := l.RequestCancel(ctx, "test"); err != nil {
			t.Fatalf("RequestCancel #%d: %v", i+1, err)
		}
	}
	if ok, err := l.CancelRequested(ctx); err != nil || !ok {
		t.Fatalf("CancelRequested after = %v, %v; want true, nil", ok, err)
	}
}
