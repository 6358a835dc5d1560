package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

func init() {
	Register("sink", newSink)
}

// sink writes its input as text lines "key<TAB>value" ("value" when the
// key is null) to a bucket: each attempt to a staging object
// .staging/<job>/<vertex>/<subtask>-<attempt>, and the master's commit
// copies the winning attempt of each subtask to <name>-<subtask %05d>.
type sink struct {
	output string
	name   string
}

func newSink(args Args) (Operator, error) {
	if err := args.Check("output", "name"); err != nil {
		return nil, err
	}
	output, err := args.String("output", "")
	if err != nil {
		return nil, err
	}
	if output == "" {
		return nil, errors.New("args.output: missing (a bucket URL or a local directory)")
	}
	name, err := args.String("name", "part")
	if err != nil {
		return nil, err
	}
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("args.name: want a plain object name prefix, got %q", name)
	}
	return &sink{output: output, name: name}, nil
}

func (s *sink) Name() string { return "sink" }

// PathArgs names the output argument (PathArgs).
func (s *sink) PathArgs() (inputs, outputs []string) { return nil, []string{"output"} }

// Preflight checks that the output takes writes (a probe object, written
// and deleted) and holds no other log's committed output.
func (s *sink) Preflight(ctx context.Context, vc *VertexContext) error {
	b, err := vc.OpenBucket(ctx, s.output, true)
	if err != nil {
		return err
	}
	where := vc.buckets.resolve(s.output)
	if err := checkOwner(ctx, b, vc, where); err != nil {
		return err
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	probe := ".jobevent-probe-" + hex.EncodeToString(r[:])
	if err := b.WriteAll(ctx, probe, nil, nil); err != nil {
		return fmt.Errorf("output %s takes no writes: %w", where, err)
	}
	if err := b.Delete(ctx, probe); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("output %s: delete %s: %w", where, probe, err)
	}
	return nil
}

func stagingPrefix(job, vertex string) string {
	return ".staging/" + job + "/" + vertex + "/"
}

func stagingKey(job, vertex string, subtask, attempt int) string {
	return fmt.Sprintf("%s%d-%d", stagingPrefix(job, vertex), subtask, attempt)
}

func (s *sink) finalKey(subtask int) string { return fmt.Sprintf("%s-%05d", s.name, subtask) }

func (s *sink) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	var buf []byte
	var n int64
	for {
		r, ok, err := in.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if !r.Key.IsNull() {
			buf = append(buf, r.Key.String()...)
			buf = append(buf, '\t')
		}
		buf = append(buf, r.Value.String()...)
		buf = append(buf, '\n')
		n++
	}
	b, err := task.OpenBucket(ctx, s.output, true)
	if err != nil {
		return err
	}
	key := stagingKey(task.Job, task.Vertex, task.Subtask, task.Attempt)
	if err := b.WriteAll(ctx, key, buf, nil); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	task.AddOutput(n, int64(len(buf)))
	return nil
}

// Commit copies the staging object of each winning attempt to its final
// name. Copying again is harmless: the bytes are the same.
func (s *sink) Commit(ctx context.Context, vc *VertexContext, attempts []SubtaskAttempt) error {
	b, err := vc.OpenBucket(ctx, s.output, true)
	if err != nil {
		return err
	}
	if err := checkOwner(ctx, b, vc, vc.buckets.resolve(s.output)); err != nil {
		return err
	}
	if err := writeOwner(ctx, b, vc); err != nil {
		return fmt.Errorf("commit %s: write %s: %w", vc.Vertex, OutputMarker, err)
	}
	for _, a := range attempts {
		src := stagingKey(vc.Job, vc.Vertex, a.Subtask, a.Attempt)
		if err := b.Copy(ctx, s.finalKey(a.Subtask), src, nil); err != nil {
			if gcerrors.Code(err) == gcerrors.NotFound {
				// A master that committed and cleaned up, and whose
				// job_finished was then lost (a torn last segment) or
				// fenced, leaves the final object and no staging: the
				// output is committed already.
				if ok, xerr := b.Exists(ctx, s.finalKey(a.Subtask)); xerr == nil && ok {
					continue
				}
				return fmt.Errorf("commit %s/%d: staging object %s is missing", vc.Vertex, a.Subtask, src)
			}
			return fmt.Errorf("commit %s/%d: %w", vc.Vertex, a.Subtask, err)
		}
	}
	return nil
}

// Cleanup deletes the vertex's staging objects.
func (s *sink) Cleanup(ctx context.Context, vc *VertexContext) error {
	b, err := vc.OpenBucket(ctx, s.output, true)
	if err != nil {
		return err
	}
	it := b.List(&gcblob.ListOptions{Prefix: stagingPrefix(vc.Job, vc.Vertex)})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			removeEmptyStaging(vc, s.output)
			return nil
		}
		if err != nil {
			return fmt.Errorf("list staging of %s: %w", vc.Vertex, err)
		}
		if err := b.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("delete %s: %w", obj.Key, err)
		}
	}
}

// Output returns the output bucket and the object name pattern.
func (s *sink) Output(vc *VertexContext) string {
	return vc.buckets.resolve(s.output)
}

// removeEmptyStaging removes the directories a local bucket keeps for the
// deleted staging objects: .staging/<job>/<vertex>, then whatever became
// empty above it.
func removeEmptyStaging(vc *VertexContext, output string) {
	root, ok := vc.buckets.localDir(output)
	if !ok {
		return
	}
	dir := filepath.Join(root, ".staging", vc.Job, vc.Vertex)
	for dir != root {
		if os.Remove(dir) != nil {
			return // not empty, or gone
		}
		dir = filepath.Dir(dir)
	}
}
