//go:build !linux

package flink

import "io/fs"

// mapFile reports that files are read in chunks here.
func mapFile(fs.File, int64) ([]byte, bool) { return nil, false }

func unmapFile([]byte) {}

func dropPages([]byte) {}
