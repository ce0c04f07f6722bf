package node

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// dialect is the command language of a script: sh -c, cmd /c or
// powershell -Command.
type dialect int

const (
	shDialect dialect = iota
	cmdDialect
	psDialect
)

// step is one simple command of a script.
type step struct {
	op    string // how it joins the previous step: "", ";", "&&" or "||"
	words []string
	raw   string // the text as written, without redirections (cmd's echo prints it)
	quiet bool   // stdout goes to a file or the null device, not the log
	bad   string // a construct the emulation does not follow
}

// result is what one step did.
type result struct {
	status  int32
	seconds float64
	output  []string
	exit    bool // the script ends here (exit)
	forever bool
	bad     string
}

// runScript interprets a script in dialect d.
func runScript(d dialect, script string, env envMap) program {
	steps, err := splitScript(d, script, env)
	if err != "" {
		return unknownProgram("%s in %q", err, script)
	}
	p := runSteps(d, steps, env)
	if !p.known {
		p.why += fmt.Sprintf(" in %q", script)
	}
	return p
}

// runSteps runs the steps in order with the shells' && and || rules.
func runSteps(d dialect, steps []step, env envMap) program {
	p := program{known: true}
	var status int32
	for _, s := range steps {
		if s.bad != "" {
			return unknownProgram("%s", s.bad)
		}
		if len(s.words) == 0 || (s.op == "&&" && status != 0) || (s.op == "||" && status == 0) {
			continue
		}
		r := execStep(d, s, env, status)
		if r.bad != "" {
			return unknownProgram("%s", r.bad)
		}
		if !s.quiet {
			for _, text := range r.output {
				p.output = append(p.output, outLine{after: p.seconds, text: text})
			}
		}
		p.seconds += r.seconds
		status = r.status
		if r.forever {
			p.forever = true
			return p
		}
		if r.exit {
			break
		}
	}
	p.exitCode = status
	return p
}

// execStep runs one simple command; last is the previous step's status.
func execStep(d dialect, s step, env envMap, last int32) result {
	name := programName(s.words[0])
	if d == psDialect {
		name = strings.ToLower(s.words[0])
	}
	args := s.words[1:]
	switch d {
	case cmdDialect:
		if r, ok := cmdBuiltin(name, s, args, last); ok {
			return r
		}
	case psDialect:
		if r, ok := psBuiltin(name, args, last); ok {
			return r
		}
	}
	if r, ok := posixBuiltin(name, args, env, last); ok {
		return r
	}
	if delegates(name) {
		p := interpret(s.words, env)
		if !p.known {
			return result{bad: p.why}
		}
		var out []string
		for _, l := range p.output {
			out = append(out, l.text)
		}
		return result{status: p.exitCode, seconds: p.seconds, output: out, forever: p.forever}
	}
	return result{bad: fmt.Sprintf("winkube cannot tell what %q does", s.words[0])}
}

// delegates reports whether interpret knows a program by name.
func delegates(name string) bool {
	switch name {
	case "sh", "bash", "ash", "dash", "cmd", "powershell", "pwsh", "agnhost":
		return true
	}
	return serverPrograms[name]
}

// posixBuiltin runs the commands a POSIX shell script of a test uses.
func posixBuiltin(name string, args []string, env envMap, last int32) (result, bool) {
	switch name {
	case "true", ":":
		return result{}, true
	case "false":
		return result{status: 1}, true
	case "echo":
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e") {
			args = args[1:]
		}
		return result{output: []string{strings.Join(args, " ")}}, true
	case "exit":
		return exitResult(args, last), true
	case "sleep":
		return sleepResult(args), true
	case "env", "printenv":
		return envResult(args, env), true
	case "tail":
		if len(args) > 0 && (args[0] == "-f" || args[0] == "-F") {
			return result{forever: true}, true
		}
	case "trap":
		return result{}, true // the handler matters only when the pod is stopped
	case "while":
		if len(args) > 0 && (args[0] == "true" || args[0] == ":") {
			return result{forever: true}, true
		}
	}
	return result{}, false
}

// cmdBuiltin runs cmd.exe's commands.
func cmdBuiltin(name string, s step, args []string, last int32) (result, bool) {
	switch name {
	case "echo", "echo.":
		text := strings.TrimSpace(s.raw)
		if len(text) > 5 {
			text = strings.TrimRight(text[5:], " ")
		} else {
			text = ""
		}
		return result{output: []string{text}}, true
	case "exit":
		if len(args) > 0 && strings.EqualFold(args[0], "/b") {
			args = args[1:]
		}
		return exitResult(args, last), true
	case "timeout":
		return timeoutResult(args), true
	case "ping":
		return pingResult(args), true
	case "set":
		return result{}, true // takes effect on later lines only; scripts here are one line
	}
	return result{}, false
}

// psBuiltin runs PowerShell's cmdlets and aliases.
func psBuiltin(name string, args []string, last int32) (result, bool) {
	switch name {
	case "write-host", "write-output", "echo", "write":
		return result{output: []string{strings.Join(args, " ")}}, true
	case "exit":
		return exitResult(args, last), true
	case "start-sleep", "sleep":
		return startSleepResult(args), true
	case "while":
		if len(args) > 0 && (strings.EqualFold(args[0], "($true)") || args[0] == "(1)") {
			return result{forever: true}, true
		}
	}
	return result{}, false
}

func exitResult(args []string, last int32) result {
	if len(args) == 0 {
		return result{status: last, exit: true}
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return result{bad: fmt.Sprintf("exit code %q is not a number", args[0])}
	}
	return result{status: int32(n), exit: true}
}

// sleepResult reads sleep's operands: numbers with an optional s, m, h or
// d suffix, summed, or "infinity".
func sleepResult(args []string) result {
	var total float64
	for _, a := range args {
		if a == "infinity" {
			return result{forever: true}
		}
		unit := 1.0
		switch {
		case strings.HasSuffix(a, "s"):
			a = strings.TrimSuffix(a, "s")
		case strings.HasSuffix(a, "m"):
			a, unit = strings.TrimSuffix(a, "m"), 60
		case strings.HasSuffix(a, "h"):
			a, unit = strings.TrimSuffix(a, "h"), 3600
		case strings.HasSuffix(a, "d"):
			a, unit = strings.TrimSuffix(a, "d"), 86400
		}
		v, err := strconv.ParseFloat(a, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return result{bad: fmt.Sprintf("sleep %q is not a duration", strings.Join(args, " "))}
		}
		total += v * unit
	}
	return result{seconds: total}
}

// timeoutResult is cmd's timeout /t N (-1 waits for a key: forever).
func timeoutResult(args []string) result {
	for i, a := range args {
		if strings.EqualFold(a, "/t") && i+1 < len(args) {
			n, err := strconv.Atoi(args[i+1])
			switch {
			case err != nil:
				return result{bad: fmt.Sprintf("timeout /t %q is not a number", args[i+1])}
			case n < 0:
				return result{forever: true}
			}
			return result{seconds: float64(n)}
		}
	}
	return result{bad: "timeout without /t"}
}

// pingResult is ping's run time: -t pings until stopped, -n N takes N-1
// seconds (one second between echoes, 4 by default). Its report is not
// modelled, so only a ping whose output is discarded is understood.
func pingResult(args []string) result {
	n := 4
	for i, a := range args {
		switch {
		case strings.EqualFold(a, "-t") || strings.EqualFold(a, "/t"):
			return result{forever: true}
		case (strings.EqualFold(a, "-n") || strings.EqualFold(a, "/n")) && i+1 < len(args):
			v, err := strconv.Atoi(args[i+1])
			if err != nil || v < 1 {
				return result{bad: fmt.Sprintf("ping -n %q is not a count", args[i+1])}
			}
			n = v
		}
	}
	return result{seconds: float64(n - 1)}
}

// startSleepResult is Start-Sleep [-Seconds] N or -Milliseconds N.
func startSleepResult(args []string) result {
	unit := 1.0
	var value string
	for _, a := range args {
		switch strings.ToLower(a) {
		case "-seconds", "-s":
		case "-milliseconds", "-m":
			unit = 0.001
		default:
			value = a
		}
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || v < 0 {
		return result{bad: fmt.Sprintf("Start-Sleep %q is not a duration", strings.Join(args, " "))}
	}
	return result{seconds: v * unit}
}

// envResult is env (every variable) or printenv NAME.
func envResult(args []string, env envMap) result {
	names := env.names
	if len(args) > 0 {
		names = args
	}
	var out []string
	for _, n := range names {
		v, ok := env.values[n]
		switch {
		case !ok && len(args) > 0:
			return result{status: 1, output: out}
		case v == nil:
			return result{bad: fmt.Sprintf("the value of %s comes from a source the emulation does not read", n)}
		case len(args) > 0:
			out = append(out, *v)
		default:
			out = append(out, n+"="+*v)
		}
	}
	return result{output: out}
}
