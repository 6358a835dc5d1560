package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// EpochInfo is the content of an epoch object, epochs/<epoch %08x>, as
// JSON {"epoch":2,"master":"10.0.0.7:7070","start_seq":1234,
// "claimant":"9f2c…"}. The JSON form is part of the format; objects written
// before claimant existed have none.
type EpochInfo struct {
	Epoch    int32  `json:"epoch"`
	Master   string `json:"master"`    // the master's address
	StartSeq int64  `json:"start_seq"` // the first seq the master writes
	// Claimant is the random nonce of the claim that created the object.
	// ClaimEpoch draws it; callers leave it empty.
	Claimant string `json:"claimant,omitempty"`
}

// ClaimEpoch creates the epoch object of info.Epoch, which fences every
// older epoch. The claim is exclusive on every backend: of any number of
// concurrent claims of one epoch, from any number of processes or machines,
// exactly one returns nil and the others ErrEpochTaken — also when the
// claimants give the same Master and StartSeq, as two masters that replayed
// one log on hosts listening on the same address do. Each call draws a
// 128-bit random Claimant into the object's body, so no two claims write the
// same bytes; an object found with exactly this call's bytes can only be
// this call's own upload, landed by a retry whose first answer was lost, and
// counts as won.
func (l *Log) ClaimEpoch(ctx context.Context, info EpochInfo) error {
	if info.Epoch < 1 || info.StartSeq < 1 {
		return fmt.Errorf("claim epoch %d: epoch and start_seq must be positive (start_seq %d)", info.Epoch, info.StartSeq)
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return fmt.Errorf("claim epoch %d: %w", info.Epoch, err)
	}
	info.Claimant = hex.EncodeToString(nonce[:])
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("claim epoch %d: %w", info.Epoch, err)
	}
	data = append(data, '\n')
	err = l.claimOnce(ctx, epochKey(info.Epoch), data)
	if errors.Is(err, ErrExists) {
		return fmt.Errorf("claim epoch %d of %s: %w", info.Epoch, l.URL(), ErrEpochTaken)
	}
	if err != nil {
		return fmt.Errorf("claim epoch %d: %w", info.Epoch, err)
	}
	return nil
}

// claimAttempts bounds how often ClaimEpoch tries an upload whose outcome
// it could not learn (a time-out, a dropped connection).
const claimAttempts = 3

// claimOnce creates the epoch object key with createOnce, retrying a
// failure that may have landed: the retry sends the same bytes, nonce
// included, so finding them means the earlier attempt won.
func (l *Log) claimOnce(ctx context.Context, key string, data []byte) error {
	var err error
	for attempt := 1; attempt <= claimAttempts; attempt++ {
		err = l.createOnce(ctx, key, data, contentTypeJSON)
		if err == nil || errors.Is(err, ErrExists) || !isRetryable(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

// createOnce writes key if it does not exist. An object that exists with
// the same bytes is success (the write is idempotent); with other bytes it
// is ErrExists.
func (l *Log) createOnce(ctx context.Context, key string, data []byte, contentType string) error {
	return l.keptIfSame(ctx, key, data, l.store.create(ctx, key, data, contentType))
}

// keptIfSame returns err, the error of creating key with data, unless it
// says that key exists: then nil when key holds data, and an error
// wrapping ErrExists when it holds other bytes.
func (l *Log) keptIfSame(ctx context.Context, key string, data []byte, err error) error {
	if !errors.Is(err, errKeyTaken) {
		return err
	}
	got, gerr := l.store.get(ctx, key)
	if gerr != nil {
		return fmt.Errorf("%w (and reading it back: %v)", err, gerr)
	}
	if bytes.Equal(got, data) {
		return nil
	}
	return fmt.Errorf("write %s: %w", key, ErrExists)
}

// Epochs returns the claimed epochs in ascending order. An epoch object
// that is not valid JSON is a *CorruptError. Safe for concurrent use.
func (l *Log) Epochs(ctx context.Context) ([]EpochInfo, error) {
	var keys []string
	err := l.store.list(ctx, EpochsDir, func(o objectInfo) error {
		if _, ok := parseEpochKey(o.Key); ok {
			keys = append(keys, o.Key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	epochs := make([]EpochInfo, 0, len(keys))
	for _, key := range keys {
		info, err := l.readEpoch(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, err
		}
		epochs = append(epochs, info)
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i].Epoch < epochs[j].Epoch })
	return epochs, nil
}

func (l *Log) readEpoch(ctx context.Context, key string) (EpochInfo, error) {
	data, err := l.store.get(ctx, key)
	if err != nil {
		return EpochInfo{}, err
	}
	var info EpochInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return EpochInfo{}, &CorruptError{Key: key, Err: fmt.Errorf("epoch object: %w", err)}
	}
	if e, _ := parseEpochKey(key); info.Epoch != e || info.StartSeq < 1 {
		return EpochInfo{}, &CorruptError{Key: key, Err: fmt.Errorf("epoch object says epoch %d start_seq %d", info.Epoch, info.StartSeq)}
	}
	return info, nil
}

// newestEpoch returns the highest claimed epoch, 0 when none is. It lists
// names only.
func (l *Log) newestEpoch(ctx context.Context) (int32, error) {
	var newest int32
	err := l.store.list(ctx, EpochsDir, func(o objectInfo) error {
		if e, ok := parseEpochKey(o.Key); ok && e > newest {
			newest = e
		}
		return nil
	})
	return newest, err
}

// Heartbeat rewrites epochs/<epoch %08x>.heartbeat. The active master calls
// it every few seconds; only the object's modification time, as the bucket
// reports it, carries meaning (the body holds the writer's clock, for
// people).
func (l *Log) Heartbeat(ctx context.Context, epoch int32) error {
	body := time.Now().UTC().Format(time.RFC3339Nano) + "\n"
	if err := l.store.put(ctx, heartbeatKey(epoch), []byte(body), contentTypeText); err != nil {
		return fmt.Errorf("heartbeat epoch %d: %w", epoch, err)
	}
	return nil
}

// HeartbeatAge returns how long ago the master of epoch last wrote its
// heartbeat, judged by the bucket's clock alone: it writes a probe object
// and subtracts the heartbeat's modification time from the probe's, so the
// local clock and another machine's never meet. A master that claimed the
// epoch but never heartbeat is aged from its epoch object. An epoch with
// neither object returns an error wrapping ErrNotFound. The resolution is
// the backend's (one second on S3).
func (l *Log) HeartbeatAge(ctx context.Context, epoch int32) (time.Duration, error) {
	last, err := l.HeartbeatTime(ctx, epoch)
	if err != nil {
		return 0, fmt.Errorf("heartbeat age of epoch %d: %w", epoch, err)
	}
	now, err := l.bucketNow(ctx)
	if err != nil {
		return 0, fmt.Errorf("heartbeat age of epoch %d: %w", epoch, err)
	}
	age := now.Sub(last)
	if age < 0 {
		age = 0
	}
	return age, nil
}

// HeartbeatTime returns the modification time, as the bucket reports it,
// of the last heartbeat of epoch's master, or of its epoch object when it
// never heartbeat. It only reads: readers without write access (`jobevent
// status`) use it, and judge the age with their own clock, while masters
// and standbys use HeartbeatAge. An epoch with neither object returns an
// error wrapping ErrNotFound. Safe for concurrent use.
func (l *Log) HeartbeatTime(ctx context.Context, epoch int32) (time.Time, error) {
	hb, err := l.store.stat(ctx, heartbeatKey(epoch))
	if errors.Is(err, ErrNotFound) {
		hb, err = l.store.stat(ctx, epochKey(epoch))
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("heartbeat of epoch %d: %w", epoch, err)
	}
	return hb.ModTime, nil
}

// bucketNow writes, stats and deletes a probe object and returns the
// modification time the bucket gave it.
func (l *Log) bucketNow(ctx context.Context) (time.Time, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return time.Time{}, err
	}
	key := probesDir + hex.EncodeToString(rnd[:])
	if err := l.store.put(ctx, key, []byte("probe\n"), contentTypeText); err != nil {
		return time.Time{}, err
	}
	defer l.store.delete(context.WithoutCancel(ctx), key)
	p, err := l.store.stat(ctx, key)
	if err != nil {
		return time.Time{}, err
	}
	return p.ModTime, nil
}

// WriteSpec writes job.yaml, once: a second write of the same bytes is a
// no-op, of other bytes an error wrapping ErrExists.
func (l *Log) WriteSpec(ctx context.Context, spec []byte) error {
	if err := l.createOnce(ctx, SpecKey, spec, contentTypeYAML); err != nil {
		return fmt.Errorf("write spec: %w", err)
	}
	return nil
}

// ReadSpec returns job.yaml, or an error wrapping ErrNotFound when there is
// none.
func (l *Log) ReadSpec(ctx context.Context) ([]byte, error) {
	data, err := l.store.get(ctx, SpecKey)
	if err != nil {
		return nil, fmt.Errorf("read spec of %s: %w", l.URL(), err)
	}
	return data, nil
}

// Exists reports whether the log holds any event segment or a job.yaml.
func (l *Log) Exists(ctx context.Context) (bool, error) {
	found := false
	err := l.store.list(ctx, EventsDir, func(o objectInfo) error {
		if _, _, _, ok := ParseSegmentName(o.Key); ok {
			found = true
			return errStopList
		}
		return nil
	})
	if err != nil || found {
		return found, err
	}
	_, err = l.store.stat(ctx, SpecKey)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
