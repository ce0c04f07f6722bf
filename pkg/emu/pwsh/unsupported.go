package pwsh

import (
	"errors"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// Unsupported says what in a script this interpreter cannot follow: ""
// when it parses fully and uses only what is emulated, else a short
// description (for the node to report once, in an event).
func Unsupported(script string) string {
	list, err := parseStatements(script)
	var un *unsupported
	switch {
	case errors.As(err, &un):
		return un.what
	case err != nil:
		return "a script that does not parse: " + err.Error()
	}
	w := &walker{}
	w.stmts(list)
	return w.found
}

// walker looks through a parsed script for commands, types and static
// members the evaluator would refuse.
type walker struct{ found string }

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

func (w *walker) stmts(list []stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s stmt) {
	switch s := s.(type) {
	case *pipelineStmt:
		for _, el := range s.elems {
			w.expr(el.expr)
			for _, r := range el.redirs {
				w.expr(r.target)
			}
			if el.cmd == nil {
				continue
			}
			if lit, ok := el.cmd.name.(*litExpr); ok {
				name := strings.ToLower(toStr(lit.v))
				if knownCmdlets[name] {
					w.note("the cmdlet " + toStr(lit.v))
				}
				if name == "new-object" {
					w.newObject(el.cmd.args)
				}
				if cl, ok := cmdlets[aliasOf(name)]; ok && (cl.name == "Get-CimInstance" || cl.name == "Get-WmiObject") {
					w.cimClass(cl.name, el.cmd.args)
				}
				if name == "get-content" || name == "gc" || name == "cat" || name == "type" {
					for _, a := range el.cmd.args {
						if strings.EqualFold(a.param, "wait") {
							w.note("Get-Content -Wait")
						}
					}
				}
			}
			w.expr(el.cmd.name)
			for _, a := range el.cmd.args {
				w.expr(a.value)
			}
		}
	case *assignStmt:
		w.expr(s.target)
		w.stmt(s.value)
	case *ifStmt:
		for k := range s.conds {
			w.stmt(s.conds[k])
			w.stmts(s.bodies[k])
		}
		w.stmts(s.els)
	case *whileStmt:
		w.stmt(s.cond)
		w.stmts(s.body)
	case *doStmt:
		w.stmt(s.cond)
		w.stmts(s.body)
	case *forStmt:
		w.stmt(s.init)
		w.stmt(s.cond)
		w.stmt(s.iter)
		w.stmts(s.body)
	case *foreachStmt:
		w.stmt(s.coll)
		w.stmts(s.body)
	case *tryStmt:
		w.stmts(s.body)
		for _, c := range s.catches {
			w.stmts(c)
		}
		w.stmts(s.finally)
	case *flowStmt:
		w.stmt(s.value)
	case *functionStmt:
		w.stmts(s.body)
	}
}

func (w *walker) expr(e expr) {
	switch e := e.(type) {
	case *xstrExpr:
		for _, p := range e.parts {
			w.stmts(p.stmts)
		}
	case *subExpr:
		w.stmts(e.stmts)
	case *parenExpr:
		w.stmt(e.s)
	case *hashExpr:
		for k := range e.keys {
			w.expr(e.keys[k])
			w.stmt(e.vals[k])
		}
	case *blockExpr:
		w.stmts(e.stmts)
	case *typeExpr:
		w.typ(e.name)
	case *castExpr:
		w.typ(e.typ)
		w.expr(e.x)
	case *unaryExpr:
		w.expr(e.x)
	case *binExpr:
		w.expr(e.l)
		w.expr(e.r)
	case *arrayExpr:
		for _, x := range e.items {
			w.expr(x)
		}
	case *memberExpr:
		w.expr(e.x)
	case *callExpr:
		w.expr(e.m.x)
		for _, a := range e.args {
			w.expr(a)
		}
		if t, ok := e.m.x.(*typeExpr); ok && e.m.static {
			if lit, ok := e.m.name.(*litExpr); ok {
				w.static(t.name, toStr(lit.v), e.args)
			}
		}
		if lit, ok := e.m.name.(*litExpr); ok && asyncMethods[strings.ToLower(toStr(lit.v))] {
			w.note("the method " + toStr(lit.v) + "()")
		}
	case *indexExpr:
		w.expr(e.x)
		w.expr(e.idx)
	case *incExpr:
		w.expr(e.x)
	case *compositeExpr:
		for _, x := range e.parts {
			w.expr(x)
		}
	}
}

func (w *walker) typ(name string) {
	if !emulatedTypes[canonicalType(name)] {
		w.note("the type [" + name + "]")
	}
}

// newObject notes a New-Object of a type the interpreter does not
// build: its -TypeName, else its first positional argument.
func (w *walker) newObject(args []arg) {
	var typ expr
	for k, a := range args {
		switch {
		case strings.EqualFold(a.param, "ComObject") || strings.EqualFold(a.param, "Com"):
			w.note("New-Object -ComObject")
			return
		case a.param != "" && strings.HasPrefix("typename", strings.ToLower(a.param)):
			typ = a.value
			if typ == nil && k+1 < len(args) {
				typ = args[k+1].value
			}
		case a.param == "" && typ == nil && (k == 0 || args[k-1].param == "" || args[k-1].value != nil):
			typ = a.value
		}
	}
	lit, ok := typ.(*litExpr)
	switch {
	case !ok:
		w.note("New-Object of a computed type")
	case !constructible[canonicalType(toStr(lit.v))]:
		w.note("New-Object " + toStr(lit.v))
	}
}

// static notes a machine- or user-wide environment variable, which a
// container's processes cannot share through the emulation.
func (w *walker) static(typ, name string, args []expr) {
	t, n := canonicalType(typ), strings.ToLower(name)
	target := 1
	if n == "setenvironmentvariable" {
		target = 2
	}
	if t == "environment" && strings.HasSuffix(n, "environmentvariable") && len(args) > target {
		if lit, ok := args[target].(*litExpr); !ok || !strings.EqualFold(toStr(lit.v), "Process") {
			w.note("[Environment]::" + name + " with a target other than Process")
		}
	}
}

// UnsupportedCommand is Unsupported for the script of a powershell or
// pwsh command line (-Command, -EncodedCommand); "" when argv runs no
// such script or the script is fully emulated.
func UnsupportedCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := program.Name(argv[0])
	if name == "logmonitor" {
		// LogMonitor.exe [/CONFIG name] runs the rest as its child.
		if len(argv) >= 3 && strings.EqualFold(argv[1], "/config") {
			return UnsupportedCommand(argv[3:])
		}
		return UnsupportedCommand(argv[1:])
	}
	if name != "powershell" && name != "pwsh" {
		return ""
	}
	inv, err := parseCLI(argv[1:], name == "pwsh")
	if err != nil || !inv.hasCommand || inv.command == "-" {
		return ""
	}
	return Unsupported(inv.command)
}
