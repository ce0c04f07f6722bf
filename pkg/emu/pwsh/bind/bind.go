// Package bind calls functions, script blocks and scripts as PowerShell
// does: it binds the arguments to the parameters (a param block, or
// function f(...)) by name, by unique prefix or alias, and by position;
// converts them to the parameters' types, checks their validation
// attributes and Mandatory, evaluates the defaults of the others; and
// runs the begin, process and end blocks over the pipeline input
// (about_Functions, about_Functions_Advanced,
// about_Functions_Advanced_Parameters, about_Scripts). The engine calls
// it through engine.Invoke, which it sets when imported.
package bind

import (
	"context"
	"errors"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

func init() { engine.Invoke = Invoke }

// Invoke binds inv's arguments and runs its body.
func Invoke(ctx context.Context, i *engine.Interp, inv *engine.Invocation) error {
	body, ps := inv.Body, (*lang.ParamStmt)(nil)
	if len(body) > 0 {
		if p, ok := body[0].(*lang.ParamStmt); ok {
			ps, body = p, body[1:]
		}
	}
	b := &binder{i: i, inv: inv, name: commandName(inv.Name), bound: values.NewHashtable(), set: map[string]bool{}}
	if err := b.specs(ctx, ps); err != nil {
		return err
	}
	if inv.NewScope {
		i.Scopes = append(i.Scopes, map[string]any{"input": inv.Input})
		defer func() { i.Scopes = i.Scopes[:len(i.Scopes)-1] }()
	}
	b.scope = i.Scopes[len(i.Scopes)-1]
	if !inv.NewScope && inv.Cmd != nil {
		// A dot-sourced script's automatic variables are its own
		// while it runs; the caller's come back after it.
		defer keep(b.scope, "psscriptroot", "pscommandpath", "myinvocation", "psboundparameters", "pscmdlet", "input")()
	}
	if err := b.bindArgs(ctx); err != nil {
		return err
	}
	for name, v := range b.prefs {
		old, _ := i.GetVar(name)
		i.SetVar(name, v)
		defer i.SetVar(name, old)
	}
	b.invocationVars() // defaults may use $PSScriptRoot
	if err := b.finish(ctx); err != nil {
		return err
	}
	if b.adv {
		b.scope["pscmdlet"] = &psCmdlet{b: b, whatIf: b.whatIf, confirm: b.confirm}
	}
	return b.run(ctx, body)
}

// invocationVars sets $MyInvocation, and for a script $PSScriptRoot and
// $PSCommandPath (about_Automatic_Variables).
func (b *binder) invocationVars() {
	inv := b.inv
	if inv.Name == "" {
		return
	}
	var cmd *values.Object
	if inv.Script {
		dir := inv.Name[:strings.LastIndex(inv.Name, `\`)+1]
		if len(dir) > 3 { // C:\app\ is C:\app; C:\ stays
			dir = strings.TrimSuffix(dir, `\`)
		}
		b.scope["psscriptroot"], b.scope["pscommandpath"] = dir, inv.Name
		cmd = values.NewObject("System.Management.Automation.ExternalScriptInfo", "Name", b.name, "Path", inv.Name,
			"Definition", inv.Name, "CommandType", "ExternalScript")
	} else {
		cmd = values.NewObject("System.Management.Automation.FunctionInfo", "Name", inv.Name, "CommandType", "Function")
	}
	invocation := inv.Name
	if inv.Cmd != nil {
		if lit, ok := inv.Cmd.Name.(*lang.LitExpr); ok {
			invocation = values.ToStr(lit.V)
		}
	}
	b.scope["myinvocation"] = values.NewObject("System.Management.Automation.InvocationInfo", "MyCommand", cmd,
		"InvocationName", invocation, "BoundParameters", b.bound, "UnboundArguments", append([]any{}, b.rest...))
}

// keep saves the named variables of a scope; the function it gives puts
// them back as they were.
func keep(scope map[string]any, names ...string) func() {
	saved := map[string]any{}
	for _, n := range names {
		if v, ok := scope[n]; ok {
			saved[n] = v
		}
	}
	return func() {
		for _, n := range names {
			if v, ok := saved[n]; ok {
				scope[n] = v
			} else {
				delete(scope, n)
			}
		}
	}
}

// commandName is the name errors give: a script's file name, a
// function's name.
func commandName(name string) string {
	return name[strings.LastIndexAny(name, `\/`)+1:]
}

// run runs the named blocks: begin once, process once per input object
// ($_ is the object) or once when not in a pipeline, end once, and
// clean (PowerShell 7) after them. A body without named blocks is the
// end block (a filter's, the process block). return leaves the block it
// is in.
func (b *binder) run(ctx context.Context, body []lang.Stmt) (err error) {
	blocks := map[string][]lang.Stmt{}
	named := false
	for _, s := range body {
		if nb, ok := s.(*lang.NamedBlockStmt); ok {
			named = true
			blocks[nb.Kind] = append(blocks[nb.Kind], nb.Body...)
		}
	}
	if clean, ok := blocks["clean"]; ok {
		// PowerShell 7.3's clean block runs last, whatever ended the
		// others, and writes nothing to the pipeline
		// (ScriptCommandProcessor.CleanResource).
		defer func() {
			emit := b.inv.Emit
			b.inv.Emit = func(any) {}
			if cerr := b.block(ctx, clean); err == nil {
				err = cerr
			}
			b.inv.Emit = emit
		}()
	}
	_, hasProcess := blocks["process"]
	switch {
	case !named && b.inv.Filter:
		blocks["process"], hasProcess = body, true
	case !named:
		blocks["end"] = body
	}
	if err := b.block(ctx, blocks["begin"]); err != nil {
		return err
	}
	if hasProcess {
		items := b.inv.Input
		if !b.inv.Piped {
			items = nil
			if err := b.block(ctx, blocks["process"]); err != nil {
				return err
			}
		}
		for _, item := range items {
			if err := ctx.Err(); err != nil {
				return err
			}
			// In the process block $input is the current object only.
			b.scope["_"], b.scope["psitem"], b.scope["input"] = item, item, []any{item}
			if err := b.pipelineItem(ctx, item); err != nil {
				return err
			}
			if err := b.block(ctx, blocks["process"]); err != nil {
				return err
			}
		}
	}
	if hasProcess && b.inv.Piped {
		b.scope["input"] = []any{} // the process block took the input
	}
	return b.block(ctx, blocks["end"])
}

func (b *binder) block(ctx context.Context, list []lang.Stmt) error {
	err := b.i.ExecList(ctx, list, b.inv.Emit)
	if errors.As(err, new(values.ReturnFlow)) {
		return nil
	}
	return err
}
