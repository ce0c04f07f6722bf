// Package engine evaluates PowerShell: the session (variables, scopes,
// location, streams), the values and their .NET members and operators,
// the pipeline and cmdlet binding, and the cmdlets themselves. Parsing is
// pwsh/lang's; the command line is pwsh's.
package engine

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/format"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Pwsh7Version is the PowerShell 7 the pwsh images ship.
const Pwsh7Version = "7.4.6"

// Interp is one PowerShell session.
type Interp struct {
	p        *program.Proc
	Sys      *program.Sys
	Pwsh7    bool
	Scopes   []map[string]any
	Funcs    map[string]*lang.FunctionStmt
	Env      []string
	Dir      string
	Loc      string // the location when on a provider drive (Env:\), else ""
	ok       bool   // $?: whether the last pipeline succeeded
	failed   bool   // the running pipeline had an error
	lastExit int    // $LASTEXITCODE
	Src      []rune
	out      io.Writer // the console
	ErrOut   func(*values.ErrorRecord)
	HostOut  io.Writer // Write-Host
	TryDepth int
	traps    []trapFrame // the trap statements in force, innermost last
	rethrown rethrow
	console  *format.Formatter // the top-level Out-Default
	errs     []any             // $Error, the newest first
	stop     bool              // $ErrorActionPreference = 'Stop'
	// scriptName and scriptArgs are the -File script and its
	// arguments, which bind to its param block.
	scriptName string
	scriptArgs []Arg
	// exits run when the session ends: what the process holds open
	// (an HttpListener's ports) is released as the OS would.
	exits []func()
}

func (i *Interp) AtExit(f func()) { i.exits = append(i.exits, f) }

// Release runs the exit functions, last first.
func (i *Interp) Release() {
	for k := len(i.exits) - 1; k >= 0; k-- {
		i.exits[k]()
	}
	i.exits = nil
}

// NewInterp starts a session for the process p; pwsh7 selects
// PowerShell 7's behaviour over Windows PowerShell 5.1's.
func NewInterp(p *program.Proc, pwsh7 bool) *Interp {
	i := &Interp{
		p: p, Sys: p.Sys, Pwsh7: pwsh7, Funcs: map[string]*lang.FunctionStmt{},
		Env: append([]string(nil), p.Env...), Dir: p.Dir, ok: true, out: p.Stdout, HostOut: p.Stdout,
		Scopes: []map[string]any{{}},
	}
	if i.Dir == "" {
		i.Dir = `C:\`
	}
	i.ErrOut = func(r *values.ErrorRecord) { r.Write(p.Stderr, i.Pwsh7) }
	return i
}

// GetVar reads a variable: automatic ones, $env:NAME, then the scopes
// from the innermost.
func (i *Interp) GetVar(name string) (any, bool) {
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "env:") {
		v, ok := i.Getenv(name[4:])
		if !ok {
			return nil, false
		}
		return v, true
	}
	for _, scope := range []string{"global:", "script:", "local:", "private:", "variable:"} {
		lower = strings.TrimPrefix(lower, scope)
	}
	switch lower {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	case "?":
		return i.ok, true
	case "lastexitcode":
		return i.lastExit, true
	case "pwd":
		return values.NewObject("System.Management.Automation.PathInfo", "Path", i.Location()), true
	case "home":
		return i.GetenvOr("USERPROFILE", `C:\Users\`+i.Sys.User.Account), true
	case "pid":
		return 1, true
	case "psversiontable":
		return i.versionTable(), true
	case "host":
		return i.Host(), true
	case "error":
		return i.errs, true
	case "iswindows", "iscoreclr":
		// PowerShell 6+ only (about_Automatic_Variables); 5.1 has none.
		if i.Pwsh7 {
			return true, true
		}
	case "islinux", "ismacos":
		if i.Pwsh7 {
			return false, true
		}
	case "erroractionpreference":
		if i.stop {
			return "Stop", true
		}
	}
	for k := len(i.Scopes) - 1; k >= 0; k-- {
		if v, ok := i.Scopes[k][lower]; ok {
			return v, true
		}
	}
	if lower == "erroractionpreference" {
		return "Continue", true
	}
	return nil, false
}

func (i *Interp) SetVar(name string, v any) error {
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "env:") {
		i.Setenv(name[4:], values.ToStr(v))
		return nil
	}
	// $script:x and $global:x are the script's own variable, whichever
	// function sets them (about_Scopes); the others are the current
	// scope's.
	scope := len(i.Scopes) - 1
	if strings.HasPrefix(lower, "global:") || strings.HasPrefix(lower, "script:") {
		scope = 0
	}
	for _, prefix := range []string{"global:", "script:", "local:", "private:", "variable:"} {
		lower = strings.TrimPrefix(lower, prefix)
	}
	switch lower {
	case "true", "false", "null", "?", "pwd", "home", "pid", "psversiontable":
		if lower == "null" {
			return nil // assigning to $null discards
		}
		return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: "Cannot overwrite variable " + name + " because it is read-only or constant.",
			Category: "WriteError", Target: name, Reason: "SessionStateUnauthorizedAccessException", Fqid: "VariableNotWritable"}}
	case "lastexitcode":
		n, _ := values.ToInt(v)
		i.lastExit = n
		return nil
	case "erroractionpreference":
		i.stop = strings.EqualFold(values.ToStr(v), "Stop")
	}
	i.Scopes[scope][lower] = v
	return nil
}

// Getenv is a process variable's value; names match without case, as on
// Windows.
func (i *Interp) Getenv(name string) (string, bool) {
	for k := len(i.Env) - 1; k >= 0; k-- {
		n, v, _ := strings.Cut(i.Env[k], "=")
		if strings.EqualFold(n, name) {
			return v, true
		}
	}
	return "", false
}

func (i *Interp) GetenvOr(name, def string) string {
	if v, ok := i.Getenv(name); ok {
		return v
	}
	return def
}

// Setenv sets a process variable; an empty value removes it.
func (i *Interp) Setenv(name, value string) {
	out := i.Env[:0:0]
	done := false
	for _, kv := range i.Env {
		n, _, _ := strings.Cut(kv, "=")
		switch {
		case !strings.EqualFold(n, name):
			out = append(out, kv)
		case value != "" && !done:
			out = append(out, n+"="+value)
			done = true
		}
	}
	if value != "" && !done {
		out = append(out, name+"="+value)
	}
	i.Env = out
}

func (i *Interp) versionTable() *values.Hashtable {
	os := i.Sys.OS
	h := values.NewHashtable()
	if i.Pwsh7 {
		h.Set("PSVersion", Version(Pwsh7Version))
		h.Set("PSEdition", "Core")
		h.Set("OS", "Microsoft Windows "+strings.TrimSuffix(os.NTVersion(), ".0"))
		h.Set("Platform", "Win32NT")
		return h
	}
	h.Set("PSVersion", Version(os.PSVersion))
	h.Set("PSEdition", "Desktop")
	h.Set("BuildVersion", Version(os.Version()))
	h.Set("CLRVersion", "4.0.30319.42000")
	return h
}

// RecordError puts an error at the head of $Error
// (about_Automatic_Variables), once.
func (i *Interp) RecordError(rec *values.ErrorRecord) {
	if len(i.errs) > 0 && i.errs[0] == any(rec) {
		return
	}
	i.errs = append([]any{rec}, i.errs...)
}

// Host is $Host and Get-Host: the console host of the PowerShell that
// runs.
func (i *Interp) Host() *values.Object {
	v := i.Sys.OS.PSVersion
	if i.Pwsh7 {
		v = Pwsh7Version
	}
	return values.NewObject("System.Management.Automation.Internal.Host.InternalHost", "Name", "ConsoleHost", "Version", Version(v))
}

// Version is a System.Version: it prints as its text and has the
// numbered parts as properties (-1 for a part the text lacks, as .NET).
func Version(text string) *values.Record {
	parts := []any{"Major", -1, "Minor", -1, "Build", -1, "Revision", -1}
	for k, f := range strings.SplitN(text, ".", 4) {
		n, err := strconv.Atoi(f)
		if err != nil {
			break
		}
		parts[2*k+1] = n
	}
	return values.NewRecord("System.Version", text, parts...)
}

// Settle prints what the console formatter still collects, before the
// script waits.
func (i *Interp) Settle() {
	if i.console != nil {
		i.console.Settle()
	}
}

func (i *Interp) Abs(path string) string { return i.Sys.FS.Abs(i.Dir, path) }

// runScript runs a parsed script at the top level and tells how it
// ended: the exit code of exit, or 0/1 by the last statement's success.
func (i *Interp) runScript(ctx context.Context, list []lang.Stmt) (int, bool, error) {
	f := i.NewFormatter(i.out)
	i.console = f
	err := i.callBody(ctx, &Invocation{Name: i.scriptName, Script: i.scriptName != "", Body: list, Args: i.scriptArgs, Emit: f.Write})
	f.Flush()
	var ex values.ExitFlow
	switch {
	case errors.As(err, &ex):
		return ex.Code, true, nil
	case err == nil, errors.As(err, new(values.BreakFlow)), errors.As(err, new(values.ContinueFlow)), errors.As(err, new(values.ReturnFlow)):
		return 0, false, nil
	}
	var re *values.RuntimeError
	if errors.As(err, &re) {
		i.RecordError(re.Rec)
		i.ErrOut(re.Rec)
		i.ok = false
		return 1, false, nil
	}
	return 1, false, err
}

// Location is Get-Location's path.
func (i *Interp) Location() string {
	if i.Loc != "" {
		return i.Loc
	}
	return i.Dir
}

// NewFormatter is an Out-Default writing to w in this session's edition.
func (i *Interp) NewFormatter(w io.Writer) *format.Formatter { return format.New(w, i.Pwsh7) }
