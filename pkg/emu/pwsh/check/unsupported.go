// Package check reads a script without running it and says what in it
// the emulation cannot follow (Unsupported), so that a node can report
// it once, in an event, before the container runs. It consults the
// engine's cmdlet table, which the cmdlet families fill when imported
// (package pwsh imports them all).
package check

import (
	"errors"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/bind"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Unsupported says what in a script this interpreter cannot follow: ""
// when it parses fully and uses only what is emulated, else a short
// description (for the node to report once, in an event).
func Unsupported(script string) string { return UnsupportedIn(script, false) }

// UnsupportedIn is Unsupported for Windows PowerShell (pwsh7 false) or
// PowerShell 7, whose parser reads more operators.
func UnsupportedIn(script string, pwsh7 bool) string {
	list, err := lang.Parse(script, pwsh7)
	var un *lang.UnsupportedError
	switch {
	case errors.As(err, &un):
		return un.What
	case err != nil:
		return "a script that does not parse: " + err.Error()
	}
	w := &walker{pwsh7: pwsh7}
	w.stmts(list)
	return w.found
}

// walker looks through a parsed script for commands, types and static
// members the evaluator would refuse.
type walker struct {
	found string
	pwsh7 bool
}

// emulatedTypes are the [types] casts and static members may use.
var emulatedTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields("int int32 int64 long byte int16 uint32 uint64 double float single decimal string bool boolean " +
		"switch array object[] string[] int[] void object psobject hashtable ordered pscustomobject char datetime regex " +
		"scriptblock environment net.dns math io.file io.directory io.path convert byte[] " +
		"net.httplistener text.encoding text.utf8encoding text.asciiencoding text.unicodeencoding io.streamreader io.streamwriter diagnostics.eventlog") {
		emulatedTypes[t] = true
	}
}

// asyncMethods are HttpListener's asynchronous methods: callbacks and
// tasks the interpreter does not run.
var asyncMethods = map[string]bool{"begingetcontext": true, "endgetcontext": true, "getcontextasync": true}

func (w *walker) note(what string) {
	if w.found == "" {
		w.found = what
	}
}

func (w *walker) stmts(list []lang.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s lang.Stmt) {
	switch s := s.(type) {
	case *lang.PipelineStmt:
		for _, el := range s.Elems {
			w.expr(el.Expr)
			for _, r := range el.Redirs {
				w.expr(r.Target)
			}
			if el.Cmd == nil {
				continue
			}
			if lit, ok := el.Cmd.Name.(*lang.LitExpr); ok {
				name := strings.ToLower(values.ToStr(lit.V))
				if engine.KnownCmdlets[name] {
					w.note("the cmdlet " + values.ToStr(lit.V))
				}
				if name == "new-object" {
					w.newObject(el.Cmd.Args)
				}
				if cl, ok := engine.Cmdlets[aliasOf(name)]; ok && (cl.Name == "Get-CimInstance" || cl.Name == "Get-WmiObject") {
					w.cimClass(cl.Name, el.Cmd.Args)
				}
				if name == "get-content" || name == "gc" || name == "cat" || name == "type" {
					for _, a := range el.Cmd.Args {
						if strings.EqualFold(a.Param, "wait") {
							w.note("Get-Content -Wait")
						}
					}
				}
			}
			w.expr(el.Cmd.Name)
			for _, a := range el.Cmd.Args {
				w.expr(a.Value)
			}
		}
	case *lang.AssignStmt:
		w.expr(s.Target)
		w.stmt(s.Value)
	case *lang.IfStmt:
		for k := range s.Conds {
			w.stmt(s.Conds[k])
			w.stmts(s.Bodies[k])
		}
		w.stmts(s.Els)
	case *lang.WhileStmt:
		w.stmt(s.Cond)
		w.stmts(s.Body)
	case *lang.DoStmt:
		w.stmt(s.Cond)
		w.stmts(s.Body)
	case *lang.ForStmt:
		w.stmt(s.Init)
		w.stmt(s.Cond)
		w.stmt(s.Iter)
		w.stmts(s.Body)
	case *lang.ForeachStmt:
		w.stmt(s.Coll)
		w.stmts(s.Body)
	case *lang.TryStmt:
		w.stmts(s.Body)
		for _, c := range s.Catches {
			w.stmts(c)
		}
		w.stmts(s.Finally)
	case *lang.FlowStmt:
		w.stmt(s.Value)
	case *lang.FunctionStmt:
		w.params(s.Params)
		w.stmts(s.Body)
	case *lang.ParamStmt:
		w.params(s.Params)
	case *lang.NamedBlockStmt:
		w.stmts(s.Body)
	case *lang.TrapStmt:
		for _, t := range s.Types {
			w.typ(t)
		}
		w.stmts(s.Body)
	case *lang.ChainStmt:
		w.stmt(s.Left)
		w.stmt(s.Right)
	case *lang.SwitchStmt:
		w.stmt(s.Value)
		w.expr(s.File)
		for _, c := range s.Clauses {
			w.expr(c.Cond)
			w.stmts(c.Body)
		}
		w.stmts(s.Default)
	}
}

// params notes parameter types and attributes the binder does not
// follow.
func (w *walker) params(list []*lang.Param) {
	for _, p := range list {
		if p.Type != "" && !strings.EqualFold(p.Type, "System.Management.Automation.SwitchParameter") {
			w.typ(p.Type)
		}
		for _, a := range p.Attrs {
			kind := strings.ToLower(a.Name)
			switch {
			case !bind.Attributes[kind], kind == "validatenotnullorwhitespace" && !w.pwsh7:
				w.note("the parameter attribute [" + a.Name + "()]")
			case kind == "validaterange" && len(a.Args) == 1 && !w.pwsh7:
				w.note("[ValidateRange()] with one argument in Windows PowerShell")
			}
		}
		w.expr(p.Default)
	}
}

func (w *walker) expr(e lang.Expr) {
	switch e := e.(type) {
	case *lang.XstrExpr:
		for _, p := range e.Parts {
			w.stmts(p.Stmts)
		}
	case *lang.SubExpr:
		w.stmts(e.Stmts)
	case *lang.ParenExpr:
		w.stmt(e.S)
	case *lang.HashExpr:
		for k := range e.Keys {
			w.expr(e.Keys[k])
			w.stmt(e.Vals[k])
		}
	case *lang.BlockExpr:
		w.stmts(e.Stmts)
	case *lang.TypeExpr:
		w.typ(e.Name)
	case *lang.CastExpr:
		w.typ(e.Typ)
		w.expr(e.X)
	case *lang.UnaryExpr:
		w.expr(e.X)
	case *lang.BinExpr:
		w.expr(e.L)
		w.expr(e.R)
	case *lang.ArrayExpr:
		for _, x := range e.Items {
			w.expr(x)
		}
	case *lang.MemberExpr:
		w.expr(e.X)
	case *lang.CallExpr:
		w.expr(e.M.X)
		for _, a := range e.Args {
			w.expr(a)
		}
		if t, ok := e.M.X.(*lang.TypeExpr); ok && e.M.Static {
			if lit, ok := e.M.Name.(*lang.LitExpr); ok {
				w.static(t.Name, values.ToStr(lit.V), e.Args)
			}
		}
		if lit, ok := e.M.Name.(*lang.LitExpr); ok && asyncMethods[strings.ToLower(values.ToStr(lit.V))] {
			w.note("the method " + values.ToStr(lit.V) + "()")
		}
	case *lang.IndexExpr:
		w.expr(e.X)
		w.expr(e.Idx)
	case *lang.IncExpr:
		w.expr(e.X)
	case *lang.TernaryExpr:
		w.expr(e.Cond)
		w.expr(e.Then)
		w.expr(e.Else)
	case *lang.CompositeExpr:
		for _, x := range e.Parts {
			w.expr(x)
		}
	}
}

func (w *walker) typ(name string) {
	if !emulatedTypes[engine.CanonicalType(name)] {
		w.note("the type [" + name + "]")
	}
}

// newObject notes a New-Object of a type the interpreter does not
// build: its -TypeName, else its first positional argument.
func (w *walker) newObject(args []lang.Arg) {
	var typ lang.Expr
	for k, a := range args {
		switch {
		case strings.EqualFold(a.Param, "ComObject") || strings.EqualFold(a.Param, "Com"):
			w.note("New-Object -ComObject")
			return
		case a.Param != "" && strings.HasPrefix("typename", strings.ToLower(a.Param)):
			typ = a.Value
			if typ == nil && k+1 < len(args) {
				typ = args[k+1].Value
			}
		case a.Param == "" && typ == nil && (k == 0 || args[k-1].Param == "" || args[k-1].Value != nil):
			typ = a.Value
		}
	}
	lit, ok := typ.(*lang.LitExpr)
	switch {
	case !ok:
		w.note("New-Object of a computed type")
	case !engine.Constructible[engine.CanonicalType(values.ToStr(lit.V))]:
		w.note("New-Object " + values.ToStr(lit.V))
	}
}

// static notes a machine- or user-wide environment variable, which a
// container's processes cannot share through the emulation.
func (w *walker) static(typ, name string, args []lang.Expr) {
	t, n := engine.CanonicalType(typ), strings.ToLower(name)
	target := 1
	if n == "setenvironmentvariable" {
		target = 2
	}
	if t == "environment" && strings.HasSuffix(n, "environmentvariable") && len(args) > target {
		if lit, ok := args[target].(*lang.LitExpr); !ok || !strings.EqualFold(values.ToStr(lit.V), "Process") {
			w.note("[Environment]::" + name + " with a target other than Process")
		}
	}
}

// aliasOf is the cmdlet an alias names (the name itself otherwise).
func aliasOf(name string) string {
	if a, ok := engine.Aliases[name]; ok {
		return a
	}
	return name
}

// cimClass notes a CIM or WMI query of a class the emulation lacks (or
// names by a value known only when it runs).
func (w *walker) cimClass(name string, args []lang.Arg) {
	class, pending := "", ""
	for _, a := range args {
		switch {
		case a.Param != "" && a.Value == nil:
			pending = strings.ToLower(a.Param)
			continue
		case a.Param != "":
			pending = strings.ToLower(a.Param)
		case pending == "":
			pending = "classname"
		}
		if lit, ok := a.Value.(*lang.LitExpr); ok && (pending == "class" || pending == "classname") {
			class = values.ToStr(lit.V)
		}
		pending = ""
	}
	if !strings.EqualFold(class, "Win32_OperatingSystem") {
		w.note("the cmdlet " + name + " (class " + class + ")")
	}
}
