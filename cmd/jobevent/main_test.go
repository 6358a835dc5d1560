package main

import (
	"os"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
)

// TestMain ends the run with one line naming the tests skipped for lack
// of a program (internal/testenv).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
