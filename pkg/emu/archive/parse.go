package archive

import (
	"fmt"
	"strings"
)

// longOptions map GNU tar's long options to their short letters; those
// with no letter of their own get a private one (upper half of bytes).
var longOptions = map[string]byte{
	"create":                  'c',
	"extract":                 'x',
	"get":                     'x',
	"list":                    't',
	"file":                    'f',
	"directory":               'C',
	"verbose":                 'v',
	"touch":                   'm',
	"dereference":             'h',
	"same-permissions":        'p',
	"preserve-permissions":    'p',
	"no-same-permissions":     0x80,
	"same-owner":              0x81,
	"no-same-owner":           'o',
	"gzip":                    'z',
	"gunzip":                  'z',
	"ungzip":                  'z',
	"bzip2":                   'j',
	"xz":                      'J',
	"numeric-owner":           0x82,
	"overwrite":               0x82,
	"no-overwrite-dir":        0x82,
	"warning":                 0x83,
	"no-recursion":            0x84, // accepted, not honoured
	"preserve-order":          0x82,
	"same-order":              0x82,
	"delay-directory-restore": 0x82,
}

// takesArg are the letters whose option has an argument.
func takesArg(c byte) bool { return c == 'f' || c == 'C' || c == 0x83 }

// parse reads tar's arguments; it returns a message for a usage error.
func (s *session) parse(args []string) string {
	s.opts.file = "-"
	// Old style: a first argument without "-" is a bundle of letters
	// whose arguments follow it in order (tar cf - PATH).
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		bundle, rest := args[0], args[1:]
		var out []string
		for i := 0; i < len(bundle); i++ {
			c := bundle[i]
			if !takesArg(c) {
				out = append(out, "-"+string(c))
				continue
			}
			if len(rest) == 0 {
				return fmt.Sprintf("option requires an argument -- '%c'", c)
			}
			out = append(out, "-"+string(c), rest[0])
			rest = rest[1:]
		}
		args = append(out, rest...)
	}
	dir := s.p.Dir
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		switch {
		case a == "--":
			for _, n := range args[i+1:] {
				s.opts.operands = append(s.opts.operands, operand{n, dir})
			}
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			c, ok := longOptions[name]
			if !ok {
				return fmt.Sprintf("unrecognized option '%s'", a)
			}
			if takesArg(c) && !hasVal {
				if val, hasVal = next(); !hasVal {
					return fmt.Sprintf("option '--%s' requires an argument", name)
				}
			}
			if msg := s.apply(c, val, &dir); msg != "" {
				return msg
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				if !takesArg(c) {
					if msg := s.apply(c, "", &dir); msg != "" {
						return msg
					}
					continue
				}
				val := a[j+1:]
				if val == "" {
					var ok bool
					if val, ok = next(); !ok {
						return fmt.Sprintf("option requires an argument -- '%c'", c)
					}
				}
				if msg := s.apply(c, val, &dir); msg != "" {
					return msg
				}
				break
			}
		default:
			s.opts.operands = append(s.opts.operands, operand{a, dir})
		}
	}
	s.dir = dir
	switch {
	case s.opts.mode == 0:
		return "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options"
	case s.opts.mode == 'c' && len(s.opts.operands) == 0 && s.opts.compress == "":
		return "Cowardly refusing to create an empty archive"
	}
	return ""
}

// apply sets one option.
func (s *session) apply(c byte, val string, dir *string) string {
	o := &s.opts
	switch c {
	case 'c', 'x', 't':
		if o.mode != 0 && o.mode != c {
			return "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"
		}
		o.mode = c
	case 'f':
		o.file = val
	case 'C':
		*dir = s.p.Sys.FS.Abs(*dir, val)
	case 'v':
		o.verbose = true
	case 'm':
		o.touch = true
	case 'h':
		o.dereference = true
	case 'p':
		o.samePerms = 1
	case 0x80:
		o.samePerms = -1
	case 0x81:
		o.sameOwner = 1
	case 'o':
		o.sameOwner = -1
	case 'z':
		o.compress = "gzip"
	case 'j':
		o.compress = "bzip2"
	case 'J':
		o.compress = "xz"
	case 0x82, 0x83, 0x84:
	default:
		return fmt.Sprintf("invalid option -- '%c'", c)
	}
	return ""
}
