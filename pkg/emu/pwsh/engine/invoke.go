package engine

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
	"github.com/winkube/winkube/pkg/emu/winexe/winutil"
)

// Arg is one argument of a command after evaluation.
type Arg struct {
	Param    string
	IsParam  bool
	Attached bool
	Value    any
}

// KnownCmdlets are real cmdlets this interpreter does not follow: they
// are refused rather than reported as unknown.
var KnownCmdlets = map[string]bool{}

func init() {
	for _, n := range strings.Fields("start-job get-job wait-job receive-job " +
		"get-volume get-disk get-partition invoke-command start-process get-service start-service stop-service " +
		"restart-service add-type get-computeprocess " +
		"register-scheduledtask new-psdrive get-acl set-acl restart-computer stop-computer " +
		"install-windowsfeature get-windowsfeature convertto-json convertfrom-json import-module " +
		"set-executionpolicy get-counter enable-psremoting get-credential " +
		"start-transcript stop-process wait-process " +
		// Microsoft.PowerShell.Utility, Management and Core cmdlets
		// scripts use that the emulation lacks: not "not recognized",
		// but said to be not emulated.
		"get-member format-table format-list format-wide select-string add-member new-timespan get-random " +
		"group-object compare-object tee-object get-unique resolve-path push-location pop-location " +
		"get-variable set-variable new-variable remove-variable clear-variable get-alias set-alias new-alias " +
		"export-csv import-csv convertto-csv convertfrom-csv convertto-xml convertto-html select-xml " +
		"set-itemproperty new-itemproperty remove-itemproperty clear-content clear-item invoke-item " +
		"get-filehash expand-archive compress-archive get-culture get-uiculture get-timezone set-date " +
		"read-host get-history test-connection start-bitstransfer get-localuser new-localuser add-localgroupmember " +
		"convertto-securestring convertfrom-securestring") {
		KnownCmdlets[n] = true
	}
}

// removedIn7 are the Windows PowerShell cmdlets PowerShell 7 does not
// have ("Differences between Windows PowerShell 5.1 and PowerShell 7":
// the *-EventLog and WMI v1 cmdlets): pwsh reports them not found.
var removedIn7 = map[string]bool{"get-eventlog": true, "write-eventlog": true, "new-eventlog": true, "remove-eventlog": true,
	"clear-eventlog": true, "get-wmiobject": true}

// invoke runs a command: a function, a cmdlet, a script file or a
// program of the image.
func (i *Interp) invoke(ctx context.Context, c *lang.Command, input []any, piped bool, emit func(any)) error {
	nameV, err := i.eval(ctx, c.Name)
	if err != nil {
		return err
	}
	args, err := i.evalArgs(ctx, c.Args)
	if err != nil {
		return err
	}
	if sb, ok := nameV.(*values.ScriptBlock); ok {
		return i.callBody(ctx, &Invocation{Body: sb.Stmts, Args: args, Input: input, Piped: piped, Emit: emit, NewScope: c.Invoke != ".", Cmd: c})
	}
	name := values.ToStr(nameV)
	lower := strings.ToLower(name)
	if f, ok := i.Funcs[lower]; ok {
		return i.callBody(ctx, &Invocation{Name: f.Name, Body: f.Body, Params: f.Params, Filter: f.Filter, Args: args,
			Input: input, Piped: piped, Emit: emit, NewScope: true, Cmd: c})
	}
	if canon, ok := Aliases[lower]; ok && !(i.Pwsh7 && (lower == "curl" || lower == "wget")) {
		lower = canon // PowerShell 7 dropped these two: curl is curl.exe there
	}
	if cl, ok := Cmdlets[lower]; ok && !(i.Pwsh7 && removedIn7[lower]) {
		return i.runCmdlet(ctx, lower, cl, c, args, input, piped, emit)
	}
	if KnownCmdlets[lower] {
		return &values.NotEmulatedError{What: "the cmdlet " + name}
	}
	if strings.HasSuffix(lower, ".ps1") && i.FileExists(i.Abs(name)) {
		return i.runScriptFile(ctx, i.Abs(name), c, args, emit, c.Invoke == ".")
	}
	if _, err := i.Sys.Lookup(name); err == nil {
		return i.native(ctx, name, args, input, piped, emit)
	}
	rec := values.NotFoundRecord(name, i.Pwsh7)
	rec.Src, rec.Pos, rec.End = i.Src, c.Pos, c.Pos+len([]rune(name))
	return &values.RuntimeError{Rec: rec}
}

func (i *Interp) evalArgs(ctx context.Context, list []lang.Arg) ([]Arg, error) {
	var out []Arg
	for _, a := range list {
		if sp, ok := a.Value.(*lang.SplatExpr); ok && a.Param == "" {
			v, _ := i.GetVar(sp.Name)
			out = append(out, splat(v)...)
			continue
		}
		e := Arg{Param: a.Param, IsParam: a.Param != ""}
		if a.Value != nil {
			v, err := i.eval(ctx, a.Value)
			if err != nil {
				return nil, err
			}
			e.Value, e.Attached = v, e.IsParam
		}
		out = append(out, e)
	}
	return out, nil
}

// splat is @name's arguments (about_Splatting): a hashtable's entries
// as -Key:Value, an array's elements as positional values, anything
// else as one value.
func splat(v any) []Arg {
	switch x := v.(type) {
	case *values.Hashtable:
		out := make([]Arg, 0, len(x.Keys))
		for _, k := range x.Keys {
			val, _ := x.Get(k)
			out = append(out, Arg{Param: k, IsParam: true, Attached: true, Value: val})
		}
		return out
	case []any:
		out := make([]Arg, len(x))
		for k, e := range x {
			out[k] = Arg{Value: e}
		}
		return out
	case nil:
		return nil
	}
	return []Arg{{Value: v}}
}

// native runs a program of the image; its output lines are strings in
// the pipeline, and its status sets $LASTEXITCODE and $?.
func (i *Interp) native(ctx context.Context, name string, args []Arg, input []any, piped bool, emit func(any)) error {
	argv := []string{name}
	for _, a := range args {
		switch {
		case a.IsParam && a.Attached:
			argv = append(argv, "-"+a.Param+":"+values.ToStr(a.Value))
		case a.IsParam:
			argv = append(argv, "-"+a.Param)
		default:
			for _, v := range values.ToList(a.Value) {
				argv = append(argv, values.ToStr(v))
			}
		}
	}
	var stdin io.Reader = i.p.Stdin
	if piped {
		var b strings.Builder
		for _, v := range input {
			b.WriteString(values.ToStr(v) + values.NL)
		}
		stdin = strings.NewReader(b.String())
	}
	lines := &lineWriter{emit: emit}
	p := &program.Proc{Args: argv, Env: append([]string(nil), i.Env...), Dir: i.Dir, Stdin: stdin,
		Stdout: lines, Stderr: i.p.Stderr, TTY: i.p.TTY, Sys: i.Sys}
	code, err := i.Sys.Exec(ctx, p)
	lines.Flush()
	if errors.Is(err, program.ErrNotFound) {
		return &values.RuntimeError{Rec: values.NotFoundRecord(name, i.Pwsh7)}
	}
	i.lastExit = code
	if code != 0 {
		i.failed = true
	}
	return nil
}

// lineWriter turns a program's output into lines.
type lineWriter struct {
	emit func(any)
	buf  []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		k := strings.IndexByte(string(w.buf), '\n')
		if k < 0 {
			return len(b), nil
		}
		w.emit(strings.TrimRight(string(w.buf[:k]), "\r"))
		w.buf = w.buf[k+1:]
	}
}

func (w *lineWriter) Flush() {
	if len(w.buf) > 0 {
		w.emit(strings.TrimRight(string(w.buf), "\r"))
		w.buf = nil
	}
}

// PlainArgs are arguments as $args holds them: a -Name as the string
// "-Name", values as they are.
func PlainArgs(args []Arg) []any {
	out := []any{}
	for _, a := range args {
		if a.IsParam {
			out = append(out, "-"+a.Param)
		}
		if a.Value != nil || !a.IsParam {
			out = append(out, a.Value)
		}
	}
	return out
}

// runScriptFile runs a .ps1 of the container's filesystem; its exit
// code becomes $LASTEXITCODE.
func (i *Interp) runScriptFile(ctx context.Context, path string, c *lang.Command, args []Arg, emit func(any), dot bool) error {
	b, err := i.ReadFile(path)
	if err != nil {
		return i.fileError(err, path, "")
	}
	text := DecodeText(b)
	list, err := lang.Parse(text, i.Pwsh7)
	if err != nil {
		return i.ParseFailure(err, text)
	}
	oldSrc := i.Src
	i.Src = []rune(text)
	// A dot-sourced script runs in the caller's scope: what it assigns
	// stays (about_Scripts, "Script scope and dot sourcing").
	top := len(i.Scopes) - 1
	if dot {
		saved, had := i.Scopes[top]["args"]
		defer func() {
			if had {
				i.Scopes[top]["args"] = saved
			} else {
				delete(i.Scopes[top], "args")
			}
		}()
	}
	err = i.callBody(ctx, &Invocation{Name: path, Script: true, Body: list, Args: args, Emit: emit, NewScope: !dot, Cmd: c})
	i.Src = oldSrc
	var ex values.ExitFlow
	if errors.As(err, &ex) {
		i.lastExit = ex.Code
		if ex.Code != 0 {
			i.failed = true
		}
		return nil
	}
	if errors.As(err, new(values.ReturnFlow)) {
		return nil
	}
	return err
}

// ParseFailure is the error of a script that does not parse.
func (i *Interp) ParseFailure(err error, text string) error {
	var un *lang.UnsupportedError
	if errors.As(err, &un) {
		return &values.NotEmulatedError{What: un.What}
	}
	var se *lang.SyntaxError
	pos, id := 0, "ParseError"
	if errors.As(err, &se) {
		pos, id = se.Pos, se.ID()
	}
	return &values.RuntimeError{Script: true, Rec: &values.ErrorRecord{Msg: err.Error(), Category: "ParserError", Target: "",
		Reason: "ParseException", Fqid: id, Src: []rune(text), Pos: pos, End: pos + 1, Parse: true}}
}

// fileError is a cmdlet's error for a filesystem failure.
func (i *Interp) fileError(err error, path, cmd string) error {
	msg := program.ErrorText(err, true)
	if winutil.IsNotExist(err) {
		msg = "Could not find a part of the path '" + path + "'."
	}
	return &values.RuntimeError{Rec: &values.ErrorRecord{Msg: msg, CmdName: cmd, Category: "WriteError", Target: path,
		Reason: "IOException", Fqid: "FileOpenFailure"}}
}
