package csi

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/winkube/winkube/pkg/emu/program"
)

// newFlagSet is the program's flag.CommandLine: Go's flag package, as the
// CSI programs parse their command lines (-x and --x alike), with
// klog's flags. A bad flag prints Go's message and the usage, exit 2.
func newFlagSet(p *program.Proc) (*flag.FlagSet, *int) {
	fs := flag.NewFlagSet(p.Args[0], flag.ContinueOnError)
	fs.SetOutput(p.Stderr)
	v := new(int)
	fs.Var((*levelFlag)(v), "v", "number for the log level verbosity")
	fs.String("vmodule", "", "comma-separated list of pattern=N settings for file-filtered logging")
	for _, name := range []string{"logtostderr", "alsologtostderr", "add_dir_header", "skip_headers", "skip_log_headers", "one_output"} {
		fs.Bool(name, false, "")
	}
	for _, name := range []string{"log_dir", "log_file", "stderrthreshold", "log_backtrace_at"} {
		fs.String(name, "", "")
	}
	fs.Uint64("log_file_max_size", 1800, "")
	return fs, v
}

// levelFlag is klog's -v: a non-negative integer.
type levelFlag int

func (l *levelFlag) String() string { return strconv.Itoa(int(*l)) }
func (l *levelFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("strconv.ParseInt: parsing %q: invalid syntax", s)
	}
	if n < 0 {
		return errors.New("negative verbosity")
	}
	*l = levelFlag(n)
	return nil
}

// parse parses args; ok is false when the program must exit with code
// (2 for a bad command line, 0 for -help).
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}
