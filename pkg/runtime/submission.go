package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Submission is what a recovery depends on besides the spec, recorded in
// the log at submission (docs/recovery.md) so that every recovery path — `run
// --resume`, `replay LOG`, the line printed on suspend, a standby —
// recovers the job as the dry run predicts, from any working directory,
// without repeating a flag. It is stored as the submission section at the
// end of the log's job.yaml:
//
//	# recorded by jobevent at submission: what a recovery depends on
//	submission:
//	  work_dir: "/var/lib/jobs/jobevents-work"
//	  overwrite_output: true
//
// A spec file has none; the job.yaml of a log written before it was
// recorded has none either, and reads as the zero Submission (the work dir
// and ownership then come from the recovering command's flags, as before).
type Submission struct {
	// WorkDir is the resolved (absolute) work dir of the embedded
	// workers; empty for a job whose workers are processes.
	WorkDir string
	// OverwriteOutput reports whether the job was submitted with
	// --overwrite-output: it owns its sinks' outputs even when they hold
	// another log's committed output.
	OverwriteOutput bool
}

// submissionMarker opens the section recordSubmission appends to job.yaml;
// everything from it on is the record, not the submitted spec.
const submissionMarker = "# recorded by jobevent at submission: what a recovery depends on\n"

// decodeSubmission reads the submission section of a logged job.yaml.
func (s *Spec) decodeSubmission(f yamlField) error {
	keys, vals, err := f.mapping()
	if err != nil {
		return err
	}
	for i, k := range keys {
		switch k {
		case "work_dir":
			if s.Submission.WorkDir, err = vals[i].str(); err != nil {
				return err
			}
			if s.Submission.WorkDir != "" && !filepath.IsAbs(s.Submission.WorkDir) {
				return vals[i].errorf("want an absolute path, got %q", s.Submission.WorkDir)
			}
		case "overwrite_output":
			if s.Submission.OverwriteOutput, err = vals[i].boolean(); err != nil {
				return err
			}
		default:
			return vals[i].errorf("unknown field (want work_dir, overwrite_output)")
		}
	}
	return nil
}

// recordSubmission sets the spec's Submission to sub and writes it as the
// submission section at the end of Raw, replacing one recorded before (a
// job.yaml taken out of a log and submitted again).
func (s *Spec) recordSubmission(sub Submission) error {
	if s.submissionLine > 0 {
		// One recorded before is replaced; one written by hand is not
		// part of a spec.
		body, err := ParseSpec(s.File, specBody(s.Raw))
		if err != nil {
			return err
		}
		if body.submissionLine > 0 {
			return &specError{File: s.File, Line: body.submissionLine, Field: "submission",
				Msg: "recorded by jobevent in the log's job.yaml at submission, not part of a spec: remove it"}
		}
	}
	var b bytes.Buffer
	b.Write(specBody(s.Raw))
	b.WriteString("\n" + submissionMarker + "submission:\n")
	if sub.WorkDir != "" {
		quoted, _ := json.Marshal(sub.WorkDir) // a JSON string is a YAML double-quoted scalar
		fmt.Fprintf(&b, "  work_dir: %s\n", quoted)
	}
	fmt.Fprintf(&b, "  overwrite_output: %t\n", sub.OverwriteOutput)
	check, err := ParseSpec(s.File, b.Bytes())
	if err != nil {
		return fmt.Errorf("record the submission of job %s in its job.yaml: %w", s.Job, err)
	}
	if check.Submission != sub {
		return fmt.Errorf("record the submission of job %s in its job.yaml: it reads back as %+v", s.Job, check.Submission)
	}
	s.Raw, s.Submission = b.Bytes(), sub
	return nil
}

// specBody returns raw without the submission section recordSubmission
// appended, trimmed of surrounding white space: the spec as submitted.
func specBody(raw []byte) []byte {
	if i := bytes.Index(raw, []byte(submissionMarker)); i >= 0 {
		raw = raw[:i]
	}
	return bytes.TrimSpace(raw)
}
