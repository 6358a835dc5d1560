package main

import (
	"context"
	"os"
	"sync"
	"syscall"
)

// interrupts records the signals the process received. The first SIGINT
// or SIGTERM ends the command's context: `run` and `master` suspend their
// job, other commands stop. A second SIGINT while the job is being
// suspended asks to cancel it instead (closes Cancel).
type interrupts struct {
	mu     sync.Mutex
	first  os.Signal
	cancel chan struct{}
	once   sync.Once
}

type interruptsKey struct{}

// withInterrupts returns ctx, ended at the first signal received on sigs,
// carrying the interrupts that record them; stop stops watching sigs.
func withInterrupts(parent context.Context, sigs <-chan os.Signal) (context.Context, func()) {
	in := &interrupts{cancel: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(parent, interruptsKey{}, in))
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if in.note(s) {
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel() }
}

// note records s and reports whether it is the first signal.
func (in *interrupts) note(s os.Signal) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.first == nil {
		in.first = s
		return true
	}
	if s == os.Interrupt {
		in.once.Do(func() { close(in.cancel) })
	}
	return false
}

// interruptsOf returns the interrupts of ctx; without any (tests running
// the app in process), one that never fires.
func interruptsOf(ctx context.Context) *interrupts {
	if in, ok := ctx.Value(interruptsKey{}).(*interrupts); ok {
		return in
	}
	return &interrupts{cancel: make(chan struct{})}
}

// Cancel is closed by a second SIGINT.
func (in *interrupts) Cancel() <-chan struct{} { return in.cancel }

// canceled reports whether a second SIGINT arrived.
func (in *interrupts) canceled() bool {
	select {
	case <-in.cancel:
		return true
	default:
		return false
	}
}

// signal returns the first signal received, nil if none.
func (in *interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.first
}

// exitCode is the shell's code for a process ended by the first signal:
// 130 for SIGINT, 143 for SIGTERM.
func (in *interrupts) exitCode() int {
	if s, ok := in.signal().(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// signalName names the first signal received.
func (in *interrupts) signalName() string {
	switch in.signal() {
	case syscall.SIGTERM:
		return "SIGTERM"
	case nil:
		return "the end of its context"
	}
	return "SIGINT"
}
