package node

import (
	"fmt"
	"strings"
	"unicode"
)

// This file turns a script's text into steps: words, quotes, variables,
// separators and redirections, per dialect. script.go runs the steps.

// splitScript cuts a script into steps, with quotes, variables and
// redirections resolved; err names a construct it does not follow.
func splitScript(d dialect, script string, env envMap) ([]step, string) {
	if d == cmdDialect {
		var err string
		if script, err = expandPercent(script, env); err != "" {
			return nil, err
		}
	}
	sc := scanner{d: d, src: []rune(script), env: env}
	return sc.scan()
}

// expandPercent replaces cmd's %NAME% before the line is parsed, as cmd
// does.
func expandPercent(s string, env envMap) (string, string) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		name := s[i+1 : i+1+j]
		v, err := lookupVar(env, name)
		if err != "" {
			return "", err
		}
		b.WriteString(s[:i] + v)
		s = s[i+j+2:]
	}
}

// lookupVar is a variable a script reads. A variable the pod does not set
// may still be set by the image or the kubelet (PATH, HOME, the service
// variables), so it is not taken as empty.
func lookupVar(env envMap, name string) (string, string) {
	v, ok := env.values[name]
	if !ok || v == nil {
		return "", fmt.Sprintf("the value of %s is not known to the emulation", name)
	}
	return *v, ""
}

// scanner splits a script into steps.
type scanner struct {
	d      dialect
	src    []rune
	i      int
	env    envMap
	steps  []step
	cur    step
	word   strings.Builder
	inWord bool
	raw    strings.Builder
	err    string
}

func (sc *scanner) scan() ([]step, string) {
	for sc.i < len(sc.src) && sc.err == "" {
		r := sc.src[sc.i]
		switch {
		case sc.separator():
		case r == '>':
			sc.redirect()
		case unicode.IsSpace(r):
			sc.endWord()
			sc.raw.WriteRune(r)
			sc.i++
		case sc.quote(r):
		case r == '$' && sc.d == shDialect:
			sc.shVar()
		case r == '$' && sc.d == psDialect && sc.hasPrefixFold("$env:"):
			sc.psVar()
		case r == '\\' && sc.d == shDialect && sc.i+1 < len(sc.src):
			sc.add(sc.src[sc.i+1], 2)
		case r == '^' && sc.d == cmdDialect && sc.i+1 < len(sc.src):
			sc.add(sc.src[sc.i+1], 2)
		default:
			sc.add(r, 1)
		}
	}
	sc.endStep("")
	return sc.steps, sc.err
}

// add appends r to the current word, consuming n source runes.
func (sc *scanner) add(r rune, n int) {
	sc.word.WriteRune(r)
	sc.raw.WriteString(string(sc.src[sc.i : sc.i+n]))
	sc.inWord = true
	sc.i += n
}

func (sc *scanner) hasPrefixFold(p string) bool {
	end := sc.i + len(p)
	return end <= len(sc.src) && strings.EqualFold(string(sc.src[sc.i:end]), p)
}

func (sc *scanner) endWord() {
	if sc.inWord {
		sc.cur.words = append(sc.cur.words, sc.word.String())
	}
	sc.word.Reset()
	sc.inWord = false
}

// endStep closes the current step; op joins the next one to it.
func (sc *scanner) endStep(op string) {
	sc.endWord()
	sc.cur.raw = sc.raw.String()
	if len(sc.cur.words) > 0 || sc.cur.bad != "" {
		sc.steps = append(sc.steps, sc.cur)
	}
	sc.cur = step{op: op}
	sc.raw.Reset()
}

// separator ends a step at ;, &&, ||, & or a newline; a pipe or a
// background job is beyond the emulation.
func (sc *scanner) separator() bool {
	switch {
	case sc.hasPrefixFold("&&"), sc.hasPrefixFold("||"):
		sc.endStep(string(sc.src[sc.i : sc.i+2]))
		sc.i += 2
	case sc.src[sc.i] == '\n', sc.src[sc.i] == ';' && sc.d != cmdDialect:
		sc.endStep(";")
		sc.i++
	case sc.src[sc.i] == '&' && sc.d == cmdDialect:
		sc.endStep(";")
		sc.i++
	case sc.src[sc.i] == '|':
		sc.err = "a pipe"
	case sc.src[sc.i] == '&':
		sc.err = "a background job"
	default:
		return false
	}
	return true
}

// quote reads a quoted string into the current word.
func (sc *scanner) quote(r rune) bool {
	literal := r == '\'' && sc.d != cmdDialect
	if r != '"' && !literal {
		return false
	}
	sc.raw.WriteRune(r)
	sc.inWord = true
	sc.i++
	for sc.i < len(sc.src) && sc.err == "" {
		c := sc.src[sc.i]
		switch {
		case c == r:
			sc.raw.WriteRune(c)
			sc.i++
			return true
		case !literal && c == '$' && sc.d == shDialect:
			sc.shVar()
		case !literal && c == '$' && sc.d == psDialect && sc.hasPrefixFold("$env:"):
			sc.psVar()
		case !literal && c == '\\' && sc.d == shDialect && sc.i+1 < len(sc.src) && strings.ContainsRune(`"\$`+"`", sc.src[sc.i+1]):
			sc.add(sc.src[sc.i+1], 2)
		default:
			sc.add(c, 1)
		}
	}
	if sc.err == "" {
		sc.err = "an unterminated quote"
	}
	return true
}

// shVar expands $NAME or ${NAME}.
func (sc *scanner) shVar() {
	j := sc.i + 1
	braced := j < len(sc.src) && sc.src[j] == '{'
	if braced {
		j++
	}
	start := j
	for j < len(sc.src) && (sc.src[j] == '_' || unicode.IsLetter(sc.src[j]) || unicode.IsDigit(sc.src[j]) && j > start) {
		j++
	}
	name := string(sc.src[start:j])
	if braced {
		if j >= len(sc.src) || sc.src[j] != '}' {
			sc.err = "a ${...} expansion"
			return
		}
		j++
	}
	if name == "" {
		sc.err = fmt.Sprintf("the shell parameter %q", string(sc.src[sc.i:min(j+1, len(sc.src))]))
		return
	}
	sc.expand(name, j)
}

// psVar expands $env:NAME.
func (sc *scanner) psVar() {
	j := sc.i + len("$env:")
	start := j
	for j < len(sc.src) && (sc.src[j] == '_' || unicode.IsLetter(sc.src[j]) || unicode.IsDigit(sc.src[j])) {
		j++
	}
	sc.expand(string(sc.src[start:j]), j)
}

func (sc *scanner) expand(name string, next int) {
	v, err := lookupVar(sc.env, name)
	if err != "" {
		sc.err = err
		return
	}
	sc.word.WriteString(v)
	sc.raw.WriteString(v)
	sc.inWord = true
	sc.i = next
}

// redirect reads >FILE, >>FILE, 2>FILE or 2>&1. Only stdout sent away
// from the log changes what the log shows; stderr is logged as well, so
// >&2 keeps the output.
func (sc *scanner) redirect() {
	fd := "1"
	if w := sc.word.String(); sc.inWord && (w == "1" || w == "2") {
		fd = w
		sc.word.Reset()
		sc.inWord = false
		raw := sc.raw.String()
		sc.raw.Reset()
		sc.raw.WriteString(raw[:len(raw)-1])
	}
	for sc.i < len(sc.src) && (sc.src[sc.i] == '>' || sc.src[sc.i] == '&') {
		sc.i++
	}
	for sc.i < len(sc.src) && sc.src[sc.i] == ' ' {
		sc.i++
	}
	start := sc.i
	for sc.i < len(sc.src) && !unicode.IsSpace(sc.src[sc.i]) && !strings.ContainsRune(";&|", sc.src[sc.i]) {
		sc.i++
	}
	target := string(sc.src[start:sc.i])
	if fd == "1" && target != "2" && target != "1" {
		sc.cur.quiet = true
	}
}
