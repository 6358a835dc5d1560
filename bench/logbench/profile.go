package main

import (
	"os"
	"runtime/pprof"
)

// profile is the -cpuprofile file; empty for none.
var profile string

// timeProfiled is timeIt with a CPU profile of f written to the -cpuprofile
// file, if one was given.
func timeProfiled(f func() error) (span, error) {
	if profile == "" {
		return timeIt(f)
	}
	out, err := os.Create(profile)
	if err != nil {
		return span{}, err
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		return span{}, err
	}
	defer pprof.StopCPUProfile()
	return timeIt(f)
}
