// Package format is Out-Default: how pipeline output becomes console
// text (scalars, tables and lists), as PowerShell's default views lay it
// out.
package format

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/pwsh/dotnet"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"
)

// Formatter is Out-Default: it turns pipeline output into console text.
// Consecutive objects of one kind share a table (a Get-ChildItem
// listing of one directory) or a list.
type Formatter struct {
	w         io.Writer
	Kind      string // the open table or list, "" when none
	pwsh7     bool
	ErrWriter func(*values.ErrorRecord) // how an error record prints; nil: its own form
	cols      []Column
	pending   *autoTable // rows of a table sized when it ends
}

// autoTable is a table of objects without a view of their own (a
// PSCustomObject of up to four properties): like Out-Default, which
// collects the objects that come together before it sizes the columns,
// it prints when the table ends. Numbers are right-aligned.
type autoTable struct {
	names  []string
	right  []bool
	rows   [][]string
	widths []int // set once printed: later rows keep these widths
}

// Column is one column of a table view: its header, width (0: the
// rest of the line) and alignment.
type Column struct {
	Name  string
	Width int
	Right bool
}

// New is a formatter writing to w; pwsh7 picks PowerShell 7's layout.
func New(w io.Writer, pwsh7 bool) *Formatter { return &Formatter{w: w, pwsh7: pwsh7} }

func (f *Formatter) Line(s string) { io.WriteString(f.w, s+values.NL) }

func (f *Formatter) Write(v any) {
	switch x := v.(type) {
	case nil:
		return
	case *values.ErrorRecord:
		f.End()
		if f.ErrWriter != nil {
			f.ErrWriter(x)
		} else {
			x.Write(f.w, f.pwsh7)
		}
	case *values.Object:
		f.object(x)
	case *values.Hashtable:
		f.hashtable(x)
	case time.Time:
		f.End()
		f.Line(x.Format("Monday, January 2, 2006 3:04:05 PM"))
	case []any:
		for _, e := range x {
			f.Write(e)
		}
	default:
		f.End()
		f.Line(values.ToStr(v))
	}
}

// End closes an open table or list.
func (f *Formatter) End() {
	if t := f.pending; t != nil {
		f.pending = nil
		if t.widths == nil {
			f.printAuto(t)
		}
	}
	if f.Kind != "" {
		f.Line("")
		f.Line("")
		f.Kind = ""
	}
}

func (f *Formatter) Flush() { f.End() }

// rowFormats are the tables of the object types a cmdlet family adds,
// by type name.
var rowFormats = map[string]func(f *Formatter, o *values.Object){}

// RegisterFormat makes Out-Default show objects of typeName with row
// (a table row, or whatever the type's format.ps1xml view says).
// Families call it from init.
func RegisterFormat(typeName string, row func(f *Formatter, o *values.Object)) {
	rowFormats[typeName] = row
}

func (f *Formatter) object(o *values.Object) {
	if row, ok := rowFormats[o.TypeName]; ok {
		row(f, o)
		return
	}
	switch o.TypeName {
	case "System.IO.FileInfo", "System.IO.DirectoryInfo":
		f.fileRow(o)
	case "Microsoft.DnsClient.Commands.DnsRecord":
		f.TableRow("dns", o, []Column{{"Name", 46, false}, {"Type", 6, false}, {"TTL", 5, false}, {"Section", 10, false}, {"IPAddress", 0, false}})
	case "System.Diagnostics.Process":
		f.TableRow("process", o, []Column{{"Handles", 7, true}, {"NPM(K)", 7, true}, {"PM(K)", 8, true}, {"WS(K)", 10, true},
			{"CPU(s)", 10, true}, {"Id", 6, true}, {"SI", 3, true}, {"ProcessName", 0, false}})
	case "System.Management.Automation.PathInfo":
		f.TableRow("path", o, []Column{{"Path", 0, false}})
	default:
		if len(o.Names) <= 4 && o.TypeName == "System.Management.Automation.PSCustomObject" {
			f.autoRow(o)
			return
		}
		f.listEntry(o)
	}
}

// fileRow is a line of Get-ChildItem's table, headed by its directory.
func (f *Formatter) fileRow(o *values.Object) {
	parent := values.ToStr(dotnet.Property(o, "PSParentPath"))
	layout := "%-6s %26s %14s %s"
	stamp := func(t time.Time) string { return fmt.Sprintf("%10s  %8s", t.Format("1/2/2006"), t.Format("3:04 PM")) }
	if f.pwsh7 {
		layout = "%-5s %28s %14s %s"
		stamp = func(t time.Time) string { return fmt.Sprintf("%10s %8s", t.Format("1/2/2006"), t.Format("3:04 PM")) }
	}
	if f.Kind != "dir:"+parent {
		f.End()
		f.Kind = "dir:" + parent
		f.Line("")
		f.Line("    Directory: " + parent)
		f.Line("")
		if !f.pwsh7 {
			f.Line("")
		}
		f.Line(fmt.Sprintf(layout, "Mode", "LastWriteTime", "Length", "Name"))
		f.Line(fmt.Sprintf(layout, "----", "-------------", "------", "----"))
	}
	t, _ := dotnet.Property(o, "LastWriteTime").(time.Time)
	f.Line(fmt.Sprintf(layout, values.ToStr(dotnet.Property(o, "Mode")), stamp(t), values.ToStr(dotnet.Property(o, "Length")), values.ToStr(dotnet.Property(o, "Name"))))
}

// TableRow prints an object as a row of a table with fixed columns.
func (f *Formatter) TableRow(kind string, o *values.Object, cols []Column) {
	cell := func(c Column, s string, last bool) string {
		switch {
		case last && !c.Right:
			return s
		case c.Right:
			return fmt.Sprintf("%*s", c.Width, s)
		}
		return fmt.Sprintf("%-*s", c.Width, s)
	}
	row := func(get func(Column) string) string {
		parts := make([]string, len(cols))
		for k, c := range cols {
			parts[k] = cell(c, get(c), k == len(cols)-1)
		}
		return strings.TrimRight(strings.Join(parts, " "), " ")
	}
	if f.Kind != kind {
		f.End()
		f.Kind = kind
		f.Line("")
		f.Line(row(func(c Column) string { return c.Name }))
		f.Line(row(func(c Column) string { return strings.Repeat("-", len(c.Name)) }))
	}
	f.Line(row(func(c Column) string {
		v, _ := o.Get(c.Name)
		if x, ok := v.(float64); ok {
			return fmt.Sprintf("%.2f", x)
		}
		return values.ToStr(v)
	}))
}

// listEntry prints an object as Name : Value lines.
func (f *Formatter) listEntry(o *values.Object) {
	if f.Kind != "list" {
		f.End()
		f.Kind = "list"
	}
	f.Line("")
	width := 0
	for _, n := range o.Names {
		if n != "HeadersText" {
			width = max(width, len(n))
		}
	}
	for _, n := range o.Names {
		if n == "HeadersText" {
			continue
		}
		v := o.Props[strings.ToLower(n)]
		text := cellText(v)
		if h, ok := v.(*values.Hashtable); ok && n == "Headers" {
			text = values.ToStr(o.Props["headerstext"])
			_ = h
		}
		lines := strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
		f.Line(strings.TrimRight(fmt.Sprintf("%-*s : %s", width, n, lines[0]), " "))
		for _, l := range lines[1:] {
			f.Line(strings.Repeat(" ", width+3) + l)
		}
	}
}

func (f *Formatter) hashtable(h *values.Hashtable) {
	if f.Kind != "hash" {
		f.End()
		f.Kind = "hash"
		f.Line("")
		f.Line(fmt.Sprintf("%-30s %s", "Name", "Value"))
		f.Line(fmt.Sprintf("%-30s %s", "----", "-----"))
	}
	for _, k := range h.Keys {
		v, _ := h.Get(k)
		f.Line(strings.TrimRight(fmt.Sprintf("%-30s %s", k, cellText(v)), " "))
	}
}

// autoRow adds an object to the open auto-sized table, or starts one;
// the first object's values decide each column's alignment.
func (f *Formatter) autoRow(o *values.Object) {
	kind := "custom:" + strings.Join(o.Names, ",")
	if f.pending != nil && strings.HasPrefix(f.Kind, "custom:") {
		// Out-Default keeps the first object's columns for the objects
		// after it, whatever properties they have.
		kind = f.Kind
	}
	if f.Kind != kind || f.pending == nil {
		f.End()
		f.Kind = kind
		t := &autoTable{names: o.Names, right: make([]bool, len(o.Names))}
		for k, n := range o.Names {
			switch o.Props[strings.ToLower(n)].(type) {
			case int, float64:
				t.right[k] = true
			}
		}
		f.pending = t
	}
	row := make([]string, len(f.pending.names))
	for k, n := range f.pending.names {
		row[k] = cellText(o.Props[strings.ToLower(n)])
	}
	if t := f.pending; t.widths != nil {
		f.Line(t.line(row))
		return
	}
	f.pending.rows = append(f.pending.rows, row)
}

// Settle prints a table whose rows are still being collected: the
// script waits (Start-Sleep), as Out-Default's collection window ends.
func (f *Formatter) Settle() {
	if t := f.pending; t != nil && t.widths == nil {
		f.printAuto(t)
	}
}

// printAuto prints a table with each column as wide as its widest cell
// or header, one space apart; the last column is not padded.
func (f *Formatter) printAuto(t *autoTable) {
	t.widths = make([]int, len(t.names))
	for k, n := range t.names {
		t.widths[k] = len(n)
		for _, r := range t.rows {
			t.widths[k] = max(t.widths[k], len([]rune(r[k])))
		}
	}
	dashes := make([]string, len(t.names))
	for k, n := range t.names {
		dashes[k] = strings.Repeat("-", len(n))
	}
	f.Line("")
	f.Line(t.line(t.names))
	f.Line(t.line(dashes))
	for _, r := range t.rows {
		f.Line(t.line(r))
	}
}

func (t *autoTable) line(cells []string) string {
	parts := make([]string, len(cells))
	for k, c := range cells {
		switch {
		case t.right[k]:
			parts[k] = fmt.Sprintf("%*s", t.widths[k], c)
		case k == len(cells)-1:
			parts[k] = c
		default:
			parts[k] = fmt.Sprintf("%-*s", t.widths[k], c)
		}
	}
	return strings.TrimRight(strings.Join(parts, " "), " ")
}

// cellText is a value in a table cell or list entry: a collection is
// shown in braces, its first four items ($FormatEnumerationLimit) and
// "..." for the rest.
func cellText(v any) string {
	list, ok := v.([]any)
	if !ok {
		// A cell shows an object's ToString(): a date in the culture's
		// form (1/2/2024 12:00:00 AM).
		if t, isDate := v.(time.Time); isDate {
			return dotnet.ToString(t, nil)
		}
		return values.ToStr(v)
	}
	parts := make([]string, 0, min(len(list), 4))
	for _, e := range list[:min(len(list), 4)] {
		parts = append(parts, values.ToStr(e))
	}
	s := "{" + strings.Join(parts, ", ")
	if len(list) > 4 {
		s += "..."
	}
	return s + "}"
}
