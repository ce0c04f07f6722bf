// Package netapplets holds the network programs of Linux images: busybox's
// nc, wget and timeout, netcat-openbsd's nc (agnhost's Alpine image
// installs it) and curl (curl.exe on Windows). Each takes its real
// program's documented option table, listed once per program as an
// Options value; an option that changes nothing in the emulation is
// accepted and marked Inert, one the real program rejects is rejected in
// its words.
package netapplets

import (
	"fmt"
	"strings"
)

// Option is one line of a program's documented option table.
type Option struct {
	Short byte   // the letter; 0 for a long-only option
	Long  string // the long name without "--"; "" for a short-only option
	Arg   string // the value's name in the usage ("SEC"); "" for a flag
	Help  string // the usage's words for it
	// Optional: the value is only what follows the letter in the same
	// word (getopt's "n::", wget's -nv), or --name=VALUE; never the next
	// argument.
	Optional bool
	// Inert marks an option accepted that changes nothing in the
	// emulation (a TCP tuning knob, a proxy setting for a network
	// without proxies).
	Inert bool
}

// Key is how a parsed command line names the option: its long name, or
// its letter when it has none.
func (o Option) Key() string {
	if o.Long != "" {
		return o.Long
	}
	return string(o.Short)
}

// Options is a program's option table and how its parser reads it.
type Options struct {
	List []Option
	// InOrder stops at the first operand (getopt's '+'); otherwise
	// operands and options mix as GNU getopt permutes them.
	InOrder bool
	// LongEquals accepts --name=VALUE (getopt_long); curl does not.
	LongEquals bool
	// NoPrefix accepts --no-NAME for each flag NAME (curl's booleans).
	NoPrefix bool
}

// Parsed is a command line read against an Options table.
type Parsed struct {
	table  *Options
	count  map[string]int
	values map[string][]string
	Args   []string // the operands
	// Order is every option given, in command-line order, for programs
	// whose options act in turn (hexdump's formats are cumulative).
	Order []Given
}

// Given is one option on the command line: its Key and its value ("" for
// a flag).
type Given struct{ Key, Value string }

// Has reports whether the option (by Key) was given and not negated.
func (p Parsed) Has(key string) bool { return p.Count(key) > 0 }

// Count is how many times the option was given (-vv).
func (p Parsed) Count(key string) int {
	p.check(key)
	return p.count[key]
}

// check panics on a key the table does not have: a program asking for
// an option its table lacks is a bug the tests must see.
func (p Parsed) check(key string) {
	if p.table == nil {
		return
	}
	for _, o := range p.table.List {
		if o.Key() == key {
			return
		}
	}
	panic("netapplets: no option " + key + " in the table")
}

// Value is the option's last value and whether it was given.
func (p Parsed) Value(key string) (string, bool) {
	p.check(key)
	v := p.values[key]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// Values are every value the option was given, in order.
func (p Parsed) Values(key string) []string {
	p.check(key)
	return p.values[key]
}

// ParseError is a command line the real program refuses.
type ParseError struct {
	Opt     string // "-t" or "--bogus", as typed
	Missing bool   // the option needs a value and has none
}

func (e *ParseError) Error() string {
	if e.Missing {
		return fmt.Sprintf("option %s needs a value", e.Opt)
	}
	return fmt.Sprintf("option %s is unknown", e.Opt)
}

// Letter is the option's letter for a short option's error.
func (e *ParseError) Letter() string { return strings.TrimPrefix(e.Opt, "-") }

// Parse reads args (without the program name) against the table.
func (t Options) Parse(args []string) (Parsed, error) {
	p := Parsed{table: &t, count: map[string]int{}, values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.Args = append(p.Args, args[i+1:]...)
			return p, nil
		case len(a) < 2 || a[0] != '-':
			if t.InOrder {
				p.Args = append(p.Args, args[i:]...)
				return p, nil
			}
			p.Args = append(p.Args, a)
			continue
		}
		var err error
		if strings.HasPrefix(a, "--") {
			i, err = t.long(&p, args, i)
		} else {
			i, err = t.short(&p, args, i)
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

func (t Options) find(short byte, long string) (Option, bool) {
	for _, o := range t.List {
		if (short != 0 && o.Short == short) || (long != "" && o.Long == long) {
			return o, true
		}
	}
	return Option{}, false
}

// long reads args[i], a --name option, and its value; it returns the
// index of the last argument it used.
func (t Options) long(p *Parsed, args []string, i int) (int, error) {
	name, value, hasValue := args[i][2:], "", false
	if t.LongEquals {
		name, value, hasValue = strings.Cut(name, "=")
	}
	o, ok := t.find(0, name)
	if !ok && t.NoPrefix && strings.HasPrefix(name, "no-") {
		if o, ok = t.find(0, strings.TrimPrefix(name, "no-")); ok && o.Arg == "" {
			p.count[o.Key()] = 0
			return i, nil
		}
	}
	if !ok || (hasValue && o.Arg == "") {
		return i, &ParseError{Opt: args[i]}
	}
	if o.Arg != "" && !hasValue && !o.Optional {
		if i+1 >= len(args) {
			return i, &ParseError{Opt: "--" + name, Missing: true}
		}
		i++
		value = args[i]
	}
	p.set(o, value)
	return i, nil
}

// short reads args[i], one or more bundled letters, the last of which
// may take a value (attached, or the next argument).
func (t Options) short(p *Parsed, args []string, i int) (int, error) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		o, ok := t.find(a[j], "")
		if !ok || o.Short == 0 {
			return i, &ParseError{Opt: "-" + a[j:j+1]}
		}
		if o.Arg == "" && !o.Optional {
			p.set(o, "")
			continue
		}
		v := a[j+1:]
		if o.Optional {
			p.count[o.Key()]++
			p.values[o.Key()] = append(p.values[o.Key()], v)
			p.Order = append(p.Order, Given{o.Key(), v})
			return i, nil
		}
		if v == "" {
			if i+1 >= len(args) {
				return i, &ParseError{Opt: "-" + a[j:j+1], Missing: true}
			}
			i++
			v = args[i]
		}
		p.set(o, v)
		return i, nil
	}
	return i, nil
}

func (p *Parsed) set(o Option, v string) {
	k := o.Key()
	p.count[k]++
	p.Order = append(p.Order, Given{k, v})
	if o.Arg != "" {
		p.values[k] = append(p.values[k], v)
	}
}
