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

// evaluated is one argument of a command after evaluation.
type evaluated struct {
	param    string
	isParam  bool
	attached bool
	value    any
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
		return i.runBlock(ctx, sb, args, input, emit, c.Invoke != ".")
	}
	name := values.ToStr(nameV)
	lower := strings.ToLower(name)
	if f, ok := i.Funcs[lower]; ok {
		return i.runFunction(ctx, f, args, input, emit)
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
		return i.runScriptFile(ctx, i.Abs(name), args, emit, c.Invoke == ".")
	}
	if _, err := i.Sys.Lookup(name); err == nil {
		return i.native(ctx, name, args, input, piped, emit)
	}
	rec := values.NotFoundRecord(name, i.Pwsh7)
	rec.Src, rec.Pos, rec.End = i.Src, c.Pos, c.Pos+len([]rune(name))
	return &values.RuntimeError{Rec: rec}
}

func (i *Interp) evalArgs(ctx context.Context, list []lang.Arg) ([]evaluated, error) {
	var out []evaluated
	for _, a := range list {
		e := evaluated{param: a.Param, isParam: a.Param != ""}
		if a.Value != nil {
			v, err := i.eval(ctx, a.Value)
			if err != nil {
				return nil, err
			}
			e.value, e.attached = v, e.isParam
		}
		out = append(out, e)
	}
	return out, nil
}

// native runs a program of the image; its output lines are strings in
// the pipeline, and its status sets $LASTEXITCODE and $?.
func (i *Interp) native(ctx context.Context, name string, args []evaluated, input []any, piped bool, emit func(any)) error {
	argv := []string{name}
	for _, a := range args {
		switch {
		case a.isParam && a.attached:
			argv = append(argv, "-"+a.param+":"+values.ToStr(a.value))
		case a.isParam:
			argv = append(argv, "-"+a.param)
		default:
			for _, v := range values.ToList(a.value) {
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

// runBlock runs a script block: in a new scope (&) or in the current
// one (.), with $args and $input.
func (i *Interp) runBlock(ctx context.Context, sb *values.ScriptBlock, args []evaluated, input []any, emit func(any), newScope bool) error {
	if newScope {
		i.Scopes = append(i.Scopes, map[string]any{"args": plainArgs(args), "input": input})
		defer func() { i.Scopes = i.Scopes[:len(i.Scopes)-1] }()
	}
	err := i.ExecList(ctx, sb.Stmts, emit)
	if errors.As(err, new(values.ReturnFlow)) {
		return nil
	}
	return err
}

func plainArgs(args []evaluated) []any {
	out := []any{}
	for _, a := range args {
		if a.isParam {
			out = append(out, "-"+a.param)
		}
		if a.value != nil || !a.isParam {
			out = append(out, a.value)
		}
	}
	return out
}

func (i *Interp) runFunction(ctx context.Context, f *lang.FunctionStmt, args []evaluated, input []any, emit func(any)) error {
	scope := map[string]any{"input": input}
	var rest []any
	k := 0
	for n := 0; n < len(args); n++ {
		a := args[n]
		if a.isParam {
			for _, p := range f.Params {
				if strings.EqualFold(p, a.param) {
					v := a.value
					if !a.attached && n+1 < len(args) && !args[n+1].isParam {
						n++
						v = args[n].value
					}
					scope[strings.ToLower(p)] = v
				}
			}
			continue
		}
		for k < len(f.Params) && scope[strings.ToLower(f.Params[k])] != nil {
			k++
		}
		if k < len(f.Params) {
			scope[strings.ToLower(f.Params[k])] = a.value
			k++
		} else {
			rest = append(rest, a.value)
		}
	}
	scope["args"] = rest
	i.Scopes = append(i.Scopes, scope)
	defer func() { i.Scopes = i.Scopes[:len(i.Scopes)-1] }()
	err := i.ExecList(ctx, f.Body, emit)
	if errors.As(err, new(values.ReturnFlow)) {
		return nil
	}
	return err
}

// runScriptFile runs a .ps1 of the container's filesystem; its exit
// code becomes $LASTEXITCODE.
func (i *Interp) runScriptFile(ctx context.Context, path string, args []evaluated, emit func(any), dot bool) error {
	b, err := i.ReadFile(path)
	if err != nil {
		return i.fileError(err, path, "")
	}
	text := DecodeText(b)
	list, err := lang.ParseStatements(text)
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
		i.Scopes[top]["args"] = plainArgs(args)
		defer func() {
			if had {
				i.Scopes[top]["args"] = saved
			} else {
				delete(i.Scopes[top], "args")
			}
		}()
	} else {
		i.Scopes = append(i.Scopes, map[string]any{"args": plainArgs(args)})
	}
	err = i.ExecList(ctx, list, emit)
	if !dot {
		i.Scopes = i.Scopes[:len(i.Scopes)-1]
	}
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
