package flink

import (
	"io/fs"
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only when f is a regular file of
// the operating system, so that its records are framed and decoded where
// the page cache holds them, with nothing copied; ok is false when it
// cannot (the file is then read in chunks).
func mapFile(f fs.File, size int64) (data []byte, ok bool) {
	osf, isOS := f.(*os.File)
	if !isOS || size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	data, err := syscall.Mmap(int(osf.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data, true
}

// unmapFile unmaps what mapFile mapped.
func unmapFile(data []byte) { syscall.Munmap(data) }

// dropPages lets the kernel drop the pages of data from the process, which
// reads them no more: a mapped file's pages count in its resident memory
// while mapped, and the page cache keeps them all the same.
func dropPages(data []byte) {
	if len(data) > 0 {
		syscall.Madvise(data, syscall.MADV_DONTNEED)
	}
}
