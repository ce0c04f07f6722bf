package redis

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// config is what redis-server's config file and options set that the
// emulation acts on. Every other directive of redis 7.2 is accepted (and
// checked for being one) but changes nothing: persistence (save,
// appendonly) is not modelled, the data set lives as long as the process.
type config struct {
	file        string // the config file's absolute path; "" without one
	port        int
	requirepass string
	bind        []string // nil: redis's default, every address
}

// fatalError is a configuration error as loadServerConfigFromString
// prints it before exiting 1.
type fatalError struct {
	line   int // 0: not tied to a line
	text   string
	reason string
}

// logError is an error redis logs (with its log prefix) before exiting 1.
type logError struct{ msg string }

func (e *fatalError) Error() string { return e.reason }
func (e *logError) Error() string   { return e.msg }

var directives = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(directiveNames) {
		m[n] = true
	}
	return m
}()

// multiArg are the directives that take a list of values.
var multiArg = map[string]bool{
	"save": true, "bind": true, "client-output-buffer-limit": true, "oom-score-adj-values": true,
	"replicaof": true, "slaveof": true, "latency-tracking-info-percentiles": true,
	"shutdown-on-sigint": true, "shutdown-on-sigterm": true,
}

// configure reads redis-server's arguments as its main() does: a first
// argument not starting with '-' is the config file, "-" first or last
// reads more of it from stdin, and each "--name value..." is appended to
// it as a "name value..." line.
func configure(p *program.Proc) (*config, error) {
	cfg := &config{port: 6379}
	args := p.Args[1:]
	if len(args) == 0 {
		return cfg, nil
	}
	var text strings.Builder
	first := 0 // the index in args of argv[1]
	if !strings.HasPrefix(args[0], "-") {
		cfg.file = p.Sys.FS.Abs(p.Dir, args[0])
		args, first = args[1:], -1
	}
	fromStdin := false
	var opts []string
	for j, a := range args {
		if a == "-" && (j == first || j == len(args)-1) {
			fromStdin = true
			continue
		}
		opts = append(opts, a)
	}
	if cfg.file != "" {
		data, err := readFile(p, cfg.file)
		if err != nil {
			return nil, &logError{fmt.Sprintf("Fatal error, can't open config file '%s': %s", cfg.file, program.ErrorText(err, false))}
		}
		text.WriteString(data)
	}
	if fromStdin {
		data, _ := io.ReadAll(p.Stdin)
		text.Write(data)
	}
	text.WriteString("\n")
	text.WriteString(optionsText(opts))
	return cfg, cfg.load(p, text.String())
}

// optionsText turns command-line options into config lines, as main()
// does: "--port 7000" becomes `port "7000"`; a bare --save (last, or
// followed by another option) is `save ""`.
func optionsText(args []string) string {
	var b strings.Builder
	handled := true
	for j, a := range args {
		if handled && strings.HasPrefix(a, "--") {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(a[2:] + " ")
			if split, _ := splitArgs(a); len(split) == 1 {
				handled = false
				if strings.EqualFold(a, "--save") && (j == len(args)-1 || strings.HasPrefix(args[j+1], "--")) {
					b.WriteString(`""`)
					handled = j < len(args)-1
				}
			} else {
				handled = true // "--port 7000" as one argument
			}
			continue
		}
		b.WriteString(repr(a) + " ")
		handled = true
	}
	return b.String()
}

func readFile(p *program.Proc, name string) (string, error) {
	f, err := p.Sys.FS.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(data), err
}

// load applies the config text line by line; the first bad line is a
// fatal error naming it.
func (cfg *config) load(p *program.Proc, text string) error {
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		argv, ok := splitArgs(line)
		if !ok {
			return &fatalError{i + 1, line, "Unbalanced quotes in configuration line"}
		}
		if len(argv) == 0 {
			continue
		}
		if err := cfg.apply(p, argv); err != nil {
			if le, ok := err.(*logError); ok {
				return le
			}
			return &fatalError{i + 1, line, err.Error()}
		}
	}
	return nil
}

// apply sets one directive, checking it as config.c does.
func (cfg *config) apply(p *program.Proc, argv []string) error {
	name := strings.ToLower(argv[0])
	vals := argv[1:]
	if !directives[name] {
		return otherDirective(p, cfg, name, vals)
	}
	if !multiArg[name] && len(vals) != 1 {
		return fmt.Errorf("wrong number of arguments")
	}
	if multiArg[name] && len(vals) == 1 && vals[0] != "" {
		vals, _ = splitArgs(vals[0])
	}
	switch name {
	case "port":
		n, err := parseInt(vals[0])
		if err != nil {
			return err
		}
		if n < 0 || n > 65535 {
			return fmt.Errorf("argument must be between 0 and 65535 inclusive")
		}
		cfg.port = int(n)
	case "requirepass":
		cfg.requirepass = vals[0]
	case "bind":
		if len(vals) > 16 {
			return fmt.Errorf("Too many bind addresses specified.")
		}
		cfg.bind = vals
	case "save":
		if len(vals) == 1 && vals[0] == "" {
			vals = nil
		}
		if len(vals)%2 == 1 {
			return fmt.Errorf("Invalid save parameters")
		}
		for j, v := range vals {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
				return fmt.Errorf("Invalid save parameters")
			}
		}
	case "appendonly", "protected-mode", "daemonize":
		if v := strings.ToLower(vals[0]); v != "yes" && v != "no" {
			return fmt.Errorf("argument must be 'yes' or 'no'")
		}
	}
	return nil
}

// otherDirective: the directives that are not configs (include,
// rename-command, user, loadmodule, module configs with a dot) and the
// deprecated ones redis still accepts; anything else is a bad directive.
func otherDirective(p *program.Proc, cfg *config, name string, vals []string) error {
	switch {
	case name == "include" && len(vals) == 1:
		file := p.Sys.FS.Abs(p.Dir, vals[0])
		data, err := readFile(p, file)
		if err != nil {
			return &logError{fmt.Sprintf("Fatal error, can't open config file '%s': %s", file, program.ErrorText(err, false))}
		}
		return cfg.load(p, data)
	case name == "rename-command" && len(vals) == 2,
		name == "user" && len(vals) >= 1,
		name == "loadmodule" && len(vals) >= 1,
		(name == "list-max-ziplist-entries" || name == "list-max-ziplist-value" || name == "lua-replicate-commands") && len(vals) == 1:
		return nil
	case strings.Contains(name, "."):
		if len(vals) == 0 {
			return fmt.Errorf("Module config specified without value")
		}
		return nil
	case name == "sentinel":
		if len(vals) > 0 {
			return fmt.Errorf("sentinel directive while not in sentinel mode")
		}
		return nil
	}
	return fmt.Errorf("Bad directive or wrong number of arguments")
}

// parseInt is redis's string2ll: decimal, an optional '-', nothing else.
func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("argument couldn't be parsed into an integer")
	}
	return n, nil
}

// splitArgs is sdssplitargs: words separated by blanks, "double quoted"
// with C escapes (\n, \xHH...) or 'single quoted'; a closing quote must
// end the word. ok is false for unbalanced quotes.
func splitArgs(line string) (args []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return args, true
		}
		var cur []byte
		inq, insq := false, false
		for done := false; !done; {
			var c byte
			if i < len(line) {
				c = line[i]
			}
			switch {
			case inq:
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					v, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
					cur = append(cur, byte(v))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					cur = append(cur, unescape(line[i]))
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				case i >= len(line):
					return nil, false
				default:
					cur = append(cur, c)
				}
			case insq:
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				case i >= len(line):
					return nil, false
				default:
					cur = append(cur, c)
				}
			default:
				switch {
				case i >= len(line) || isSpace(c):
					done = true
				case c == '"':
					inq = true
				case c == '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		args = append(args, string(cur))
	}
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// repr is sdscatrepr: s double-quoted, with \n, \r, \t, \a, \b, \\ and \"
// escaped and other unprintable bytes as \xHH. redis-cli prints bulk
// strings so on a terminal.
func repr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
