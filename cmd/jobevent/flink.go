package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// flinkPlanFlag and coordinatorFlag are the side information flags of the
// commands that read a LOG: they override what a Flink log and Flink's own
// storage say, and are a usage error on another log.
func flinkPlanFlag() cli.Flag {
	return &cli.StringFlag{Name: "flink-plan", Usage: "Flink log: the job's plan JSON (REST GET /jobs/:jobid/plan) in `FILE`, for vertex names and edges"}
}

func coordinatorFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "coordinator", Usage: "Flink log: the coordinator kind of a vertex, `VERTEX=batch_snapshot|no_batch_snapshot|none` (VERTEX by 32-hex id or name; repeatable)"}
}

// flinkHAFlag and flinkRESTFlag say where Flink keeps what the log lacks,
// when jobevent cannot find it by itself.
func flinkHAFlag() cli.Flag {
	return &cli.StringFlag{Name: "flink-ha", Usage: "Flink log: the HA cluster directory `DIR` (<storageDir>/<cluster-id>, any bucket) holding the job's submittedJobGraph/submittedExecutionPlan, when it is not two levels above the job-events directory"}
}

func flinkRESTFlag() cli.Flag {
	return &cli.StringFlag{Name: "flink-rest", Usage: "Flink log: the REST API `URL` of the running cluster (http://jobmanager:8081): the job's plan, and the TaskManagers gone since they ran finished subtasks (their partitions are lost)"}
}

// withFlinkFlags adds the Flink side information flags to a reading
// command's flags.
func withFlinkFlags(flags ...cli.Flag) []cli.Flag {
	return append(flags, flinkPlanFlag(), coordinatorFlag(), flinkHAFlag(), flinkRESTFlag())
}

// flinkOptionsOf reads --flink-plan and --coordinator. It returns nil when
// neither is set.
func flinkOptionsOf(c *cli.Context) (*logsource.FlinkOptions, error) {
	fo := &logsource.FlinkOptions{}
	if file := c.String("flink-plan"); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--flink-plan: %w", err)
		}
		plan, err := flink.ParsePlan(data)
		if err != nil {
			return nil, fmt.Errorf("--flink-plan %s: %w", file, err)
		}
		fo.Plan = plan
		fo.Given = append(fo.Given, "--flink-plan")
	}
	for _, s := range c.StringSlice("coordinator") {
		v, kind, ok := answer.ParseCoordinator(s)
		if !ok {
			return nil, usagef(c, "bad --coordinator %q: want VERTEX=batch_snapshot|no_batch_snapshot|none", s)
		}
		if fo.Coordinators == nil {
			fo.Coordinators = map[string]string{}
		}
		fo.Coordinators[v] = kind
	}
	if len(fo.Coordinators) > 0 {
		fo.Given = append(fo.Given, "--coordinator")
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"flink-ha", &fo.HA}, {"flink-rest", &fo.REST}} {
		if v := c.String(f.name); v != "" {
			*f.to = v
			fo.Given = append(fo.Given, "--"+f.name)
		}
	}
	if len(fo.Given) == 0 {
		return nil, nil
	}
	return fo, nil
}

// refuseFlinkWrites wraps a command that writes to its log (cancel,
// compact, run and master with --events) so that it refuses a Flink
// job-events directory: jobevent never writes next to Flink's files.
func refuseFlinkWrites(cmd *cli.Command) *cli.Command {
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		logs := []string{c.Args().First()}
		if c.IsSet("events") {
			logs = []string{c.String("events")}
		} else if cmd.Name == "run" || cmd.Name == "master" {
			logs = nil // their LOG is a default under ./jobevents
		}
		for _, l := range logs {
			if l == "" {
				continue
			}
			kind, err := logsource.Classify(c.Context, l)
			if err != nil {
				return err
			}
			if kind == logsource.KindFlink {
				return usagef(c, "%s is a Flink job-events directory: %s would write next to Flink's files, and jobevent only reads them (docs/flink.md)", l, cmd.Name)
			}
		}
		return inner(c)
	}
	return cmd
}
