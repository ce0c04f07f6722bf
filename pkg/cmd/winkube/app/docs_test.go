package app

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/winkube/winkube/internal/mdblock"
	"github.com/winkube/winkube/pkg/cmd"
)

// docCall is one winkube command line of a page's ```sh blocks.
type docCall struct {
	where string // file:line
	args  []string
}

// TestDocsCommandLines: every winkube command line in the README's and
// docs/'s ```sh and ```bash blocks names a command and flags the CLI has, and passes
// its argument check, so a renamed flag or command cannot leave a page
// behind. The pages whose blocks form a walk-through (the README's tour,
// docs/up.md, nodes.md, kind.md, existing-cluster.md, lint.md, webhook.md,
// net.md, doctor.md, plan.md, gmsa.md) are also run as a whole by
// test/e2e's TestDocs.
func TestDocsCommandLines(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	n := 0
	for _, page := range pages {
		for _, call := range docCalls(t, page) {
			n++
			if err := checkCall(call.args); err != nil {
				t.Errorf("%s: winkube %s: %v", call.where, strings.Join(call.args, " "), err)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d winkube command lines found in the docs: is the page parser broken?", n)
	}
}

// checkCall finds the command args name and parses its flags and
// arguments as cobra would before running it.
func checkCall(args []string) error {
	root := NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}})
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := c.Flags().GetBool("help"); help {
		return nil
	}
	return c.ValidateArgs(c.Flags().Args())
}

// docCalls parses a page's ```sh blocks as shell and returns each call of
// winkube (or `go run ./cmd/winkube`) with its words; a word that is not a
// literal (a variable, a command substitution) stands as "X".
func docCalls(t *testing.T, page string) []docCall {
	t.Helper()
	lines, _, err := mdblock.Lines(page, "sh", "bash")
	if err != nil {
		t.Fatal(err)
	}
	var calls []docCall
	for i := 0; i < len(lines); i++ {
		line := lines[i].Text
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) && lines[i+1].No == lines[i].No+1 {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i].Text
		}
		where := filepath.Base(page) + ":" + strconv.Itoa(lines[i].No)
		file, err := syntax.NewParser().Parse(strings.NewReader(line), where)
		if err != nil {
			// A line that opens a here-doc or a loop goes on in the
			// next: only whole commands are checked.
			continue
		}
		syntax.Walk(file, func(node syntax.Node) bool {
			call, ok := node.(*syntax.CallExpr)
			if !ok {
				return true
			}
			words := wordsOf(call.Args)
			if args, ok := winkubeArgs(words); ok {
				calls = append(calls, docCall{where: where, args: args})
			}
			return true
		})
	}
	return calls
}

// winkubeArgs are the arguments of a call of winkube.
func winkubeArgs(words []string) ([]string, bool) {
	switch {
	case len(words) > 0 && words[0] == "winkube":
		return words[1:], true
	case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/winkube":
		return words[3:], true
	}
	return nil, false
}

func wordsOf(args []*syntax.Word) []string {
	words := make([]string, 0, len(args))
	for _, w := range args {
		if lit := w.Lit(); lit != "" {
			words = append(words, lit)
			continue
		}
		words = append(words, quotedLit(w))
	}
	return words
}

// quotedLit is a word of quoted literals ('a b', "c") as the shell
// passes it, or "X" when it holds an expansion.
func quotedLit(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "X"
				}
				b.WriteString(lit.Value)
			}
		default:
			return "X"
		}
	}
	return b.String()
}
