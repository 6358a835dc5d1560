package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// ErrPartitionNotFound is returned when a worker does not hold a partition
// (any more): the consumer reports partition-not-found and the master
// resets the producer.
var ErrPartitionNotFound = errors.New("jobevent/runtime: partition not found")

// errPartitionCorrupt is returned for a partition file that fails its
// checks; consumers treat it like a missing partition.
var errPartitionCorrupt = errors.New("jobevent/runtime: partition file corrupt")

// Partition file format (a worker's local disk, one file per partition,
// named <job>/<vertex>-<subtask>-<attempt>-<consumer> under the worker's
// directory). Every integer below is a uvarint unless it says otherwise.
//
//	"JEP1"                     magic, 4 bytes
//	header length              uint32 little endian
//	header:
//	  vertex                   length + bytes
//	  subtask, attempt
//	  consumer                 length + bytes
//	  groups G
//	  G × (bytes, records, crc32 of the group's bytes)
//	data: the G key groups, concatenated, each a run of encoded records
//
// Records are put in key group keyGroup(key, G), so that a consumer reads
// a contiguous range of groups; G is given by edgeGroups.
const partitionMagic = "JEP1"

// partitionHeader is the parsed header of a partition file.
type partitionHeader struct {
	id      partID
	bytes   []int64
	records []int64
	crcs    []uint32
	offsets []int64 // absolute file offset of each group, plus the end
}

func (h *partitionHeader) totalBytes() int64   { return h.offsets[len(h.offsets)-1] - h.offsets[0] }
func (h *partitionHeader) totalRecords() int64 { return sum(h.records) }

func sum(xs []int64) int64 {
	var t int64
	for _, x := range xs {
		t += x
	}
	return t
}

// partitionBuilder collects the records of one partition, by key group.
type partitionBuilder struct {
	id      partID
	groups  [][]byte
	records []int64
}

func newPartitionBuilder(id partID, groups int) *partitionBuilder {
	return &partitionBuilder{id: id, groups: make([][]byte, groups), records: make([]int64, groups)}
}

func (b *partitionBuilder) add(r Record) {
	g := keyGroup(r.Key, len(b.groups))
	b.groups[g] = appendRecord(b.groups[g], r)
	b.records[g]++
}

func (b *partitionBuilder) size() (bytes, records int64) {
	for i, g := range b.groups {
		bytes += int64(len(g))
		records += b.records[i]
	}
	return bytes, records
}

func (b *partitionBuilder) header() []byte {
	var h []byte
	h = binary.AppendUvarint(h, uint64(len(b.id.Vertex)))
	h = append(h, b.id.Vertex...)
	h = binary.AppendUvarint(h, uint64(b.id.Subtask))
	h = binary.AppendUvarint(h, uint64(b.id.Attempt))
	h = binary.AppendUvarint(h, uint64(len(b.id.Consumer)))
	h = append(h, b.id.Consumer...)
	h = binary.AppendUvarint(h, uint64(len(b.groups)))
	for i, g := range b.groups {
		h = binary.AppendUvarint(h, uint64(len(g)))
		h = binary.AppendUvarint(h, uint64(b.records[i]))
		h = binary.AppendUvarint(h, uint64(crc32.ChecksumIEEE(g)))
	}
	return h
}

func parsePartitionHeader(r io.ReaderAt, size int64) (*partitionHeader, error) {
	var pre [8]byte
	if _, err := r.ReadAt(pre[:], 0); err != nil || string(pre[:4]) != partitionMagic {
		return nil, fmt.Errorf("%w: bad magic", errPartitionCorrupt)
	}
	hlen := int64(binary.LittleEndian.Uint32(pre[4:]))
	if hlen > size-8 {
		return nil, fmt.Errorf("%w: header length %d past the end", errPartitionCorrupt, hlen)
	}
	buf := make([]byte, hlen)
	if _, err := r.ReadAt(buf, 8); err != nil {
		return nil, fmt.Errorf("%w: %v", errPartitionCorrupt, err)
	}
	d := &uvarintDecoder{b: buf}
	h := &partitionHeader{}
	h.id.Vertex = d.str()
	h.id.Subtask = int32(d.uint(1 << 31))
	h.id.Attempt = int32(d.uint(1 << 31))
	h.id.Consumer = d.str()
	groups := int(d.uint(maxKeyGroups + 1))
	if d.err != nil || groups < 1 {
		return nil, fmt.Errorf("%w: bad header", errPartitionCorrupt)
	}
	off := 8 + hlen
	h.offsets = append(h.offsets, off)
	for i := 0; i < groups; i++ {
		n := int64(d.uint(uint64(size)))
		h.bytes = append(h.bytes, n)
		h.records = append(h.records, int64(d.uint(uint64(size)+1)))
		h.crcs = append(h.crcs, uint32(d.uint(1<<32)))
		off += n
		h.offsets = append(h.offsets, off)
	}
	if d.err != nil || off != size {
		return nil, fmt.Errorf("%w: header does not match the file size", errPartitionCorrupt)
	}
	return h, nil
}

// uvarintDecoder reads uvarints and strings, remembering the first error.
type uvarintDecoder struct {
	b   []byte
	err error
}

func (d *uvarintDecoder) uint(max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v >= max {
		d.err = errPartitionCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *uvarintDecoder) str() string {
	n := d.uint(1 << 16)
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errPartitionCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// partitionStore keeps the partitions of a worker under one directory:
// <dir>/<job>/<vertex>-<subtask>-<attempt>-<consumer> (embedded workers,
// which share a work dir: <dir>/<job>/<worker>/...). Files are written
// whole to a temporary name and renamed, so a crash never leaves a partial
// partition under its real name. It is safe for concurrent use.
type partitionStore struct {
	dir string
	sub string // embedded workers share dir: <dir>/<job>/<sub>/...

	mu      sync.Mutex
	headers map[string]*partitionHeader // by path
}

func newPartitionStore(dir, sub string) *partitionStore {
	return &partitionStore{dir: dir, sub: sub, headers: map[string]*partitionHeader{}}
}

// path returns the file of a partition. The job and the id are checked by
// the wire rules (wire.go) and the path is built under the store's
// directory only: no name can make it leave.
func (s *partitionStore) path(job string, id partID) (string, error) {
	dir, err := s.jobDir(job)
	if err != nil {
		return "", err
	}
	if err := checkPart(id); err != nil {
		return "", err
	}
	return rooted(dir, id.Vertex+"-"+strconv.Itoa(int(id.Subtask))+"-"+strconv.Itoa(int(id.Attempt))+"-"+id.Consumer)
}

// jobDir is the directory of a job's partitions.
func (s *partitionStore) jobDir(job string) (string, error) {
	if err := checkName("job", job); err != nil {
		return "", err
	}
	if s.sub == "" {
		return rooted(s.dir, job)
	}
	if err := checkName("worker", s.sub); err != nil {
		return "", err
	}
	return rooted(s.dir, job, s.sub)
}

// write stores a finished partition.
func (s *partitionStore) write(job string, b *partitionBuilder) error {
	p, err := s.path(job, b.id)
	if err != nil {
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	defer os.Remove(tmp.Name())
	hdr := b.header()
	var pre [8]byte
	copy(pre[:], partitionMagic)
	binary.LittleEndian.PutUint32(pre[4:], uint32(len(hdr)))
	bufs := net.Buffers{pre[:], hdr}
	for _, g := range b.groups {
		if len(g) > 0 {
			bufs = append(bufs, g)
		}
	}
	if _, err := bufs.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("partition %s: %w", partString(b.id), err)
	}
	s.mu.Lock()
	delete(s.headers, p)
	s.mu.Unlock()
	return nil
}

// open returns the header of a partition, or ErrPartitionNotFound.
func (s *partitionStore) open(job string, id partID) (*os.File, *partitionHeader, error) {
	p, err := s.path(job, id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: %w", partString(id), ErrPartitionNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("partition %s: %w", partString(id), err)
	}
	s.mu.Lock()
	h := s.headers[p]
	s.mu.Unlock()
	if h == nil {
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("partition %s: %w", partString(id), err)
		}
		if h, err = parsePartitionHeader(f, st.Size()); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("partition %s: %w", partString(id), err)
		}
		if h.id != id {
			f.Close()
			return nil, nil, fmt.Errorf("partition %s: %w: file holds %s", partString(id), errPartitionCorrupt, partString(h.id))
		}
		s.mu.Lock()
		s.headers[p] = h
		s.mu.Unlock()
	}
	return f, h, nil
}

// read returns the records of key groups [from, to) of a partition,
// encoded, and how many there are. The range is clamped to the groups the
// partition has.
func (s *partitionStore) read(job string, id partID, from, to int) ([]byte, int64, error) {
	f, h, err := s.open(job, id)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	groups := len(h.bytes)
	from, to = max(0, min(from, groups)), max(0, min(to, groups))
	if from >= to {
		return nil, 0, nil
	}
	data := make([]byte, h.offsets[to]-h.offsets[from])
	if _, err := f.ReadAt(data, h.offsets[from]); err != nil {
		return nil, 0, fmt.Errorf("partition %s: %w", partString(id), err)
	}
	var records int64
	for g := from; g < to; g++ {
		chunk := data[h.offsets[g]-h.offsets[from] : h.offsets[g+1]-h.offsets[from]]
		if crc32.ChecksumIEEE(chunk) != h.crcs[g] {
			return nil, 0, fmt.Errorf("partition %s: %w: key group %d fails its checksum", partString(id), errPartitionCorrupt, g)
		}
		records += h.records[g]
	}
	return data, records, nil
}

// list returns the partitions held for job, skipping files that fail
// their checks.
func (s *partitionStore) list(job string) ([]heldPartition, error) {
	dir, err := s.jobDir(job)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list partitions of %s: %w", job, err)
	}
	var out []heldPartition
	for _, e := range entries {
		if !e.Type().IsRegular() || len(e.Name()) > 0 && e.Name()[0] == '.' {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := s.headerOf(p)
		if err != nil {
			continue
		}
		if want, err := s.path(job, h.id); err != nil || want != p {
			continue
		}
		out = append(out, heldPartition{ID: h.id, Bytes: h.totalBytes(), Records: h.totalRecords()})
	}
	return out, nil
}

func (s *partitionStore) headerOf(p string) (*partitionHeader, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return parsePartitionHeader(f, st.Size())
}

// remove deletes one partition; a missing one is not an error.
func (s *partitionStore) remove(job string, id partID) error {
	p, err := s.path(job, id)
	if err != nil {
		return fmt.Errorf("delete partition %s: %w", partString(id), err)
	}
	s.mu.Lock()
	delete(s.headers, p)
	s.mu.Unlock()
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete partition %s: %w", partString(id), err)
	}
	return nil
}

// removeJob deletes every partition of job.
func (s *partitionStore) removeJob(job string) error {
	dir, err := s.jobDir(job)
	if err != nil {
		return fmt.Errorf("delete partitions of %q: %w", job, err)
	}
	s.mu.Lock()
	s.headers = map[string]*partitionHeader{}
	s.mu.Unlock()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete partitions of %s: %w", job, err)
	}
	if s.sub != "" {
		os.Remove(filepath.Dir(dir)) // the job's directory, once the last worker's is gone
	}
	return nil
}
