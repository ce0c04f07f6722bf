package bind

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// psCmdlet is an advanced function's $PSCmdlet: the members scripts
// use most (ShouldProcess with -WhatIf, ThrowTerminatingError,
// WriteError, ParameterSetName, MyInvocation); others are not there.
type psCmdlet struct {
	b       *binder
	whatIf  bool
	confirm bool
}

func (c *psCmdlet) NetType() string { return "System.Management.Automation.PSScriptCmdlet" }
func (c *psCmdlet) String() string  { return c.NetType() }

func (c *psCmdlet) GetProp(name string) (any, bool) {
	switch strings.ToLower(name) {
	case "parametersetname":
		if name, ok := c.b.setNames[c.b.setName]; ok {
			return name, true
		}
		return "__AllParameterSets", true
	case "myinvocation":
		return c.b.scope["myinvocation"], true
	}
	return nil, false
}

func (c *psCmdlet) SetProp(name string, _ any) error { return values.ReadOnly(name) }

func (c *psCmdlet) CallMethod(_ context.Context, name string, args []any) (any, bool, error) {
	i := c.b.i
	switch name {
	case "shouldprocess":
		// -WhatIf says what would happen and does not do it
		// (about_CommonParameters); -Confirm would ask at a console.
		if c.confirm {
			return nil, true, &values.NotEmulatedError{What: "-Confirm, which asks at the console"}
		}
		if !c.whatIf {
			return true, true, nil
		}
		text := ""
		switch len(args) {
		case 1:
			text = fmt.Sprintf(`Performing the operation "%s" on target "%s".`, c.b.inv.Name, values.ToStr(args[0]))
		case 2:
			text = fmt.Sprintf(`Performing the operation "%s" on target "%s".`, values.ToStr(args[1]), values.ToStr(args[0]))
		default:
			if len(args) > 0 {
				text = values.ToStr(args[0])
			}
		}
		io.WriteString(i.HostOut, "What if: "+text+values.NL)
		return false, true, nil
	case "throwterminatingerror":
		if rec, ok := firstRecord(args); ok {
			return nil, true, &values.RuntimeError{Rec: rec, Script: true}
		}
	case "writeerror":
		if rec, ok := firstRecord(args); ok {
			i.RecordError(rec)
			i.ErrOut(rec)
			return nil, true, nil
		}
	}
	return nil, false, nil
}

func firstRecord(args []any) (*values.ErrorRecord, bool) {
	if len(args) != 1 {
		return nil, false
	}
	rec, ok := args[0].(*values.ErrorRecord)
	return rec, ok
}
