package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

// version is the jobevent version; release builds set it with
// -ldflags "-X main.version=v1.2.3", and "go install ...@version" builds
// report the module version.
var version = ""

// commands returns every subcommand, one constructor per file: the runtime
// (run, master, worker) and the log commands.
func commands() []*cli.Command {
	return []*cli.Command{
		newImportCommand(),
		newDumpCommand(),
		newValidateCommand(),
		newDiffCommand(),
		newReplayCommand(),
		newTimelineCommand(),
		newStatsCommand(),
		newCompletionCommand(),
		refuseFlinkWrites(newRunCommand()),
		refuseFlinkWrites(newMasterCommand()),
		refuseFlinkWrites(newWorkerCommand()),
		newDrillCommand(),
		refuseFlinkWrites(newCompactCommand()),
		newLsCommand(),
		newServeCommand(),
		newStatusCommand(),
		newWatchCommand(),
		refuseFlinkWrites(newCancelCommand()),
	}
}

// application is one jobevent process: its standard streams and the
// parts that tests replace. main builds one with newApplication; a test
// builds its own, changes a field and runs it.
type application struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// recoverJob recovers the job of a log for real, the same as
	// "jobevent run --resume": "jobevent replay LOG" without --dry-run
	// calls it.
	recoverJob func(c *cli.Context, log string) error
	// drillPlanner is the planner drills predict with; nil means
	// replay.Plan. Tests set a broken one to see the command fail.
	drillPlanner drill.Planner
	// progress is the base of every command's progress line; tests
	// replace its terminal check to exercise the line without a terminal.
	progress progress.Options
}

// newApplication returns the application main runs, reading stdin and
// writing stdout and stderr.
func newApplication(stdin io.Reader, stdout, stderr io.Writer) *application {
	return &application{stdin: stdin, stdout: stdout, stderr: stderr, recoverJob: recoverFromLog}
}

// applicationKey is the key of the application in its cli.App's Metadata.
const applicationKey = "jobevent.application"

// appOf returns the application whose command runs in c.
func appOf(c *cli.Context) *application {
	if a, ok := c.App.Metadata[applicationKey].(*application); ok {
		return a
	}
	return newApplication(c.App.Reader, c.App.Writer, c.App.ErrWriter)
}

// run runs the application on args (args[0] is the program name) and
// returns the exit code.
func (a *application) run(ctx context.Context, args []string) int {
	return runApp(ctx, a.cli(), args)
}

// newApp builds the cli.App of the default application writing to stdout
// and stderr.
func newApp(stdout, stderr io.Writer) *cli.App {
	return newApplication(nil, stdout, stderr).cli()
}

// cli builds the cli.App of a. It writes only to a's stdout and stderr,
// and never exits the process: errors come back from Run, and runApp maps
// them to exit codes.
func (a *application) cli() *cli.App {
	app := &cli.App{
		Name:           "jobevent",
		Usage:          "record, inspect and replay batch job event logs",
		UsageText:      "jobevent COMMAND [flags] ARGS...",
		Version:        versionString(),
		Reader:         a.stdin,
		Writer:         a.stdout,
		ErrWriter:      a.stderr,
		Metadata:       map[string]any{applicationKey: a},
		Commands:       commands(),
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		Action:         rootAction,
		Description: "A LOG is a bucket URL (file://, mem://, s3://, gs://, azblob://; ?prefix= selects\n" +
			"the job), a bare local path, or a canonical JSONL file (*.jsonl, read-only).\n\n" +
			"Exit codes: 0 ok; 1 findings; 2 usage error, bad input, corruption, I/O; 3 deliberate crash.\n\n" +
			"EXAMPLE:\n" +
			"   jobevent replay 'file:///var/lib/jobevent?prefix=jobs/wordcount/' --dry-run",
	}
	for _, cmd := range app.Commands {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
	}
	return app
}

// versionString is what --version prints after "jobevent version".
func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s (event schema %s)", v, format.SchemaVersion)
}

// rootAction runs when no known command was named: an unknown one, or
// none at all. Either is a usage error; without a command, the short
// usage goes to stderr ("jobevent help" and --help print the long one).
func rootAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c.App, "", c.Args().First())
	}
	printShortUsage(c.App.ErrWriter, c.App)
	return &exitError{code: exitFailure}
}

// printShortUsage writes the usage line and the command list.
func printShortUsage(w io.Writer, app *cli.App) {
	fmt.Fprintf(w, "usage: %s\n\ncommands:\n", app.UsageText)
	width := 0
	for _, cmd := range app.Commands {
		width = max(width, len(cmd.Name))
	}
	for _, cmd := range app.Commands {
		if !cmd.Hidden && cmd.Name != "help" {
			fmt.Fprintf(w, "  %-*s  %s\n", width, cmd.Name, cmd.Usage)
		}
	}
	fmt.Fprintln(w, "\nrun 'jobevent COMMAND --help' for a command's flags and examples, 'jobevent --help' for more")
}

func commandNames(app *cli.App) string {
	names := make([]string, 0, len(app.Commands))
	for _, cmd := range app.Commands {
		if !cmd.Hidden && cmd.Name != "help" {
			names = append(names, cmd.Name)
		}
	}
	return strings.Join(names, ", ")
}

// runMain runs the app on args (args[0] is the program name) with the
// given standard streams and returns the exit code. It is main without
// os.Exit, so tests run the app in process. Every error is printed as one
// line on stderr.
func runMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApplication(stdin, stdout, stderr).run(ctx, args)
}

// runApp runs app on args and returns the exit code, printing the error
// line on the app's ErrWriter. A panic is recovered and reported the
// same way (exit 2), never as a stack trace.
func runApp(ctx context.Context, app *cli.App, args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			printError(app.ErrWriter, fmt.Errorf("internal error: %v", p))
			code = exitFailure
		}
	}()
	err := checkHelpTopic(app, args)
	if err == nil {
		err = app.RunContext(ctx, reorderArgs(app, args))
	}
	if line := commandErrorLine(err, commandName(app, args)); line != "" {
		fmt.Fprintln(app.ErrWriter, line)
	}
	return exitCode(err)
}

// commandName returns the name of the command args run, "" for none.
func commandName(app *cli.App, args []string) string {
	for _, a := range args[min(1, len(args)):] {
		if !isFlag(a) {
			if cmd := app.Command(a); cmd != nil {
				return cmd.Name
			}
			return ""
		}
	}
	return ""
}

// checkHelpTopic turns "jobevent help NOSUCH" into a usage error; cli
// would end it with exit code 3, the code of a deliberate crash.
func checkHelpTopic(app *cli.App, args []string) error {
	if len(args) < 3 || (args[1] != "help" && args[1] != "h") || isFlag(args[2]) {
		return nil
	}
	if app.Command(args[2]) == nil {
		return unknownCommand(app, "help: ", args[2])
	}
	return nil
}
