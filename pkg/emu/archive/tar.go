// Package archive holds tar, as GNU tar behaves for what kubectl cp and
// scripts ask of it: create (c), extract (x) and list (t) an uncompressed
// archive on a container's FS.
package archive

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Tar is the tar program.
var Tar program.Main = tarMain

// options are tar's parsed arguments.
type options struct {
	mode        byte // 'c', 'x' or 't'
	file        string
	verbose     bool
	touch       bool // -m: extracted files get the current time
	dereference bool // -h: archive what symlinks point to
	samePerms   int  // -1 no, 0 default, 1 yes
	sameOwner   int
	compress    string // a compressor asked for (refused)
	operands    []operand
}

// operand is a name and the -C directory in effect where it was given.
type operand struct{ name, dir string }

// session is one run of tar.
type session struct {
	ctx      context.Context
	p        *program.Proc
	opts     options
	dir      string // the last -C, for extraction
	failed   bool
	warned   map[string]bool // prefixes already reported as removed
	names    *idNames
	ugsWidth int // see list
}

func tarMain(ctx context.Context, p *program.Proc) int {
	s := &session{ctx: ctx, p: p, dir: p.Dir, warned: map[string]bool{}, ugsWidth: ugsWidth}
	if msg := s.parse(p.Args[1:]); msg != "" {
		fmt.Fprintf(p.Stderr, "tar: %s\nTry 'tar --help' or 'tar --usage' for more information.\n", msg)
		return 2
	}
	if s.opts.compress != "" {
		return s.noCompressor()
	}
	var status int
	switch s.opts.mode {
	case 'c':
		status = s.create()
	default:
		status = s.extract()
	}
	if status == 0 && s.failed {
		fmt.Fprintln(p.Stderr, "tar: Exiting with failure status due to previous errors")
		status = 2
	}
	return status
}

// noCompressor is what GNU tar prints when the compressor it runs is not
// installed: the image has no gzip for tar to run.
func (s *session) noCompressor() int {
	fmt.Fprintf(s.p.Stderr, "tar (child): %s: Cannot exec: No such file or directory\n", s.opts.compress)
	fmt.Fprintln(s.p.Stderr, "tar (child): Error is not recoverable: exiting now")
	fmt.Fprintln(s.p.Stderr, "tar: Child returned status 2")
	fmt.Fprintln(s.p.Stderr, "tar: Error is not recoverable: exiting now")
	return 2
}

// warn prints "tar: NAME: WHAT: ERRTEXT" and marks the run failed.
func (s *session) warn(name, what string, err error) {
	fmt.Fprintf(s.p.Stderr, "tar: %s: %s: %s\n", name, what, program.ErrorText(err, s.p.Sys.Windows))
	s.failed = true
}

// fatal prints a message and ends the run with status 2.
func (s *session) fatal(msg string) int {
	fmt.Fprintf(s.p.Stderr, "tar: %s\ntar: Error is not recoverable: exiting now\n", msg)
	return 2
}

// root reports whether tar runs as root, which decides the defaults of
// --same-owner and --same-permissions.
func (s *session) root() bool {
	return !s.p.Sys.Windows && s.p.Sys.User.UID == 0
}

func (s *session) keepPerms() bool {
	return s.opts.samePerms > 0 || s.opts.samePerms == 0 && s.root()
}

func (s *session) keepOwner() bool {
	return s.opts.sameOwner > 0 || s.opts.sameOwner == 0 && s.root()
}

// safeName strips what GNU tar strips from member names: a leading "/"
// (and a Windows drive), and everything up to a last ".." component,
// saying so once per prefix.
func (s *session) safeName(name string) string {
	if s.p.Sys.Windows {
		name = strings.ReplaceAll(name, `\`, "/")
		if len(name) >= 2 && name[1] == ':' {
			name = name[2:]
		}
	}
	cut := 0
	for i := 0; i < len(name); {
		j := strings.IndexByte(name[i:], '/')
		end := len(name)
		if j >= 0 {
			end = i + j
		}
		if name[i:end] == ".." {
			cut = min(end+1, len(name))
		}
		i = end + 1
	}
	for cut < len(name) && name[cut] == '/' {
		cut++
	}
	if cut == 0 {
		return name
	}
	prefix := name[:cut]
	if !s.warned[prefix] {
		s.warned[prefix] = true
		fmt.Fprintf(s.p.Stderr, "tar: Removing leading `%s' from member names\n", prefix)
	}
	if cut == len(name) {
		return "."
	}
	return name[cut:]
}

// listTo is where -v lists members: stdout, unless the archive goes
// there.
func (s *session) listTo() io.Writer {
	if s.opts.mode == 'c' && s.opts.file == "-" {
		return s.p.Stderr
	}
	return s.p.Stdout
}
