package runtime

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/jobevent/jobevent/pkg/blob"
)

// createLog opens the log at rawURL for writing (blob.Create). undo
// removes the directories that Create made for a file:// log, deepest
// first and only while they are empty: a job refused before anything was
// written leaves no empty jobevents/<job>/ behind. For other schemes undo
// does nothing (a bucket has no directories to make).
func createLog(ctx context.Context, rawURL string) (log *blob.Log, undo func(), err error) {
	made := missingLogDirs(rawURL)
	undo = func() {
		for _, d := range made {
			if os.Remove(d) != nil {
				return
			}
		}
	}
	log, err = blob.Create(ctx, rawURL)
	if err != nil {
		undo()
		return nil, nil, err
	}
	return log, undo, nil
}

// missingLogDirs returns the directories of the file:// log at rawURL (its
// directory and the prefix's) that do not exist yet, deepest first; nil
// for other schemes.
func missingLogDirs(rawURL string) []string {
	canon, err := blob.ParseURL(rawURL)
	if err != nil {
		return nil
	}
	u, err := url.Parse(canon)
	if err != nil || u.Scheme != "file" {
		return nil
	}
	var out []string
	d := filepath.Join(filepath.FromSlash(u.Path), filepath.FromSlash(u.Query().Get("prefix")))
	for {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		parent := filepath.Dir(d)
		if parent == d {
			return out
		}
		d = parent
	}
}
