package agreement

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/apis/config/v1alpha1"
	"github.com/winkube/winkube/pkg/cmd"
	imagecmd "github.com/winkube/winkube/pkg/cmd/winkube/image"
	plancmd "github.com/winkube/winkube/pkg/cmd/winkube/plan"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/kubeversion"
	"github.com/winkube/winkube/pkg/lint"
	"github.com/winkube/winkube/pkg/lint/report"
	"github.com/winkube/winkube/pkg/manifest"
)

// readDoc returns a page of the repository (README.md, docs/*.md).
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocsLintTranscripts keeps the `winkube lint` transcripts of the
// README's tour and of docs/lint.md what lint prints: the clean
// examples/ summary, the failing IIS example without its annotation (line
// number, rule ID, message, fix, summary, in that order) and, in
// docs/lint.md, the unknown fields of lint's golden deploy file.
func TestDocsLintTranscripts(t *testing.T) {
	target := cluster(t, kubeversion.DefaultMinor)

	examples := filepath.Join(repoRoot, "examples")
	objs, _ := manifest.Load([]string{examples}, manifest.Options{})
	clean := transcript(t, lint.New(target).Lint(objs), examples, "examples")

	// rule: IMG-2 (the IIS transcript: a 2022 image on 2019 nodes)
	src, err := os.ReadFile(filepath.Join(repoRoot, "examples", "iis-2022-on-2019-fails.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.Contains(line, "winkube.io/ignore:") { // the pages' sed
			kept = append(kept, line)
		}
	}
	file := filepath.Join(t.TempDir(), "iis.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, _ = manifest.Load([]string{file}, manifest.Options{})
	iis := transcript(t, lint.New(target).Lint(objs), file, "/tmp/iis.yaml")

	for _, page := range []string{"README.md", "docs/lint.md"} {
		text := readDoc(t, page)
		if !strings.Contains(text, "$ winkube lint examples/\n"+clean) {
			t.Errorf("%s's `winkube lint examples/` transcript differs; lint prints:\n%s", page, clean)
		}
		if !strings.Contains(text, "winkube lint /tmp/iis.yaml\n"+iis) {
			t.Errorf("%s's IIS transcript differs; lint prints:\n%s", page, iis)
		}
	}

	// rule: API-10 (docs/lint.md's deploy.yaml lines are lint's golden
	// unknown-fields.yaml, whose Deployment is the page's)
	golden := filepath.Join(repoRoot, "pkg", "lint", "testdata", "golden", "unknown-fields.yaml")
	objs, _ = manifest.Load([]string{golden}, manifest.Options{})
	out := transcript(t, lint.New(target).Lint(objs), golden, "deploy.yaml")
	var shown int
	for _, line := range strings.Split(readDoc(t, "docs/lint.md"), "\n") {
		line = strings.TrimPrefix(line, "  ")
		if !strings.HasPrefix(line, "deploy.yaml:") {
			continue
		}
		shown++
		if !strings.Contains(out, line+"\n") {
			t.Errorf("docs/lint.md shows a finding lint does not print:\n%s\nlint prints:\n%s", line, out)
		}
	}
	if shown != 2 {
		t.Errorf("docs/lint.md shows %d deploy.yaml findings, want the 2 of its API-10 example", shown)
	}
}

// transcript is lint's text output with the file path as the page
// shows it.
func transcript(t *testing.T, r *lint.Result, path, shown string) string {
	t.Helper()
	var b strings.Builder
	if err := report.Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if path == "" {
		return b.String()
	}
	return strings.ReplaceAll(b.String(), path, shown)
}

// block returns the body of the fenced block of page whose body starts
// with first (a prompt line), up to its closing fence.
func block(t *testing.T, page, first string) string {
	t.Helper()
	text := readDoc(t, page)
	i := strings.Index(text, "```\n"+first+"\n")
	if i < 0 {
		t.Fatalf("%s has no block starting with %q", page, first)
	}
	body := text[i+len("```\n"):]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatalf("%s: the block starting with %q is not closed", page, first)
	}
	return body[:end+1]
}

// fenced returns the body of the first block of page opened with
// "```"+lang.
func fenced(t *testing.T, page, lang string) string {
	t.Helper()
	text := readDoc(t, page)
	i := strings.Index(text, "```"+lang+"\n")
	if i < 0 {
		t.Fatalf("%s has no ```%s block", page, lang)
	}
	body := text[i+len("```"+lang+"\n"):]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatalf("%s: its ```%s block is not closed", page, lang)
	}
	return body[:end+1]
}

// trimLines drops trailing blanks of every line: a page keeps none.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// execute runs a winkube command in process and returns its stdout,
// stderr (with the error that ends it) and exit code.
func execute(t *testing.T, c interface {
	SetArgs([]string)
	Execute() error
}, args ...string) (int, error) {
	t.Helper()
	c.SetArgs(args)
	err := c.Execute()
	var exit *cmd.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		return exit.Code, exit.Err
	}
	return -1, err
}

// TestDocsPlanTranscript keeps docs/plan.md's `winkube plan` transcript
// what plan prints for the page's own cluster file.
func TestDocsPlanTranscript(t *testing.T) {
	const prompt = "$ winkube plan --config cluster.yaml"
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(file, []byte(fenced(t, "docs/plan.md", "yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code, err := execute(t, plancmd.NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}), "--config", file)
	if code != 0 {
		t.Fatalf("plan of docs/plan.md's cluster file exited %d (%v):\n%s%s", code, err, out.String(), errOut.String())
	}
	want := prompt + "\n" + trimLines(out.String())
	if got := block(t, "docs/plan.md", prompt); got != want {
		t.Errorf("docs/plan.md's plan transcript differs; plan prints:\n%s", want)
	}
}

// TestDocsImageTranscript keeps docs/lint.md's `winkube image`
// transcript what the command prints for an index of those platforms
// behind the mirror. (Not library/web: Docker Hub's library namespace
// holds only the official images, so lint and the nodes know web:1.0
// cannot be pulled, mirror or not.)
func TestDocsImageTranscript(t *testing.T) {
	const prompt = "$ winkube image --registry-mirror docker.io=127.0.0.1:5000 team/web:1.0"
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	srv := rt.Start(t)
	srv.PushIndex(t, "team/web:1.0", rt.Linux("amd64"), rt.Windows(rt.Version2019), rt.Windows(rt.Version2022))

	var out, errOut bytes.Buffer
	code, err := execute(t, imagecmd.NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}),
		"--registry-mirror", "docker.io="+srv.Host, "team/web:1.0")
	if code != 0 {
		t.Fatalf("image exited %d (%v):\n%s%s", code, err, out.String(), errOut.String())
	}
	want := prompt + "\n" + trimLines(out.String())
	if got := block(t, "docs/lint.md", prompt); got != want {
		t.Errorf("docs/lint.md's image transcript differs; image prints:\n%s", want)
	}
}

// TestDocsClusterConfig keeps docs/up.md's cluster config one that up
// accepts, and its validation transcript what validation says (each line
// up to the page's "...").
func TestDocsClusterConfig(t *testing.T) {
	if _, err := v1alpha1.Decode([]byte(fenced(t, "docs/up.md", "yaml"))); err != nil {
		t.Errorf("docs/up.md's cluster config is refused: %v", err)
	}

	// rule: PLAN-1 (a DNS service IP outside the service subnet)
	file := filepath.Join(t.TempDir(), "lab.yaml")
	bad := "apiVersion: winkube.io/v1alpha1\nkind: Cluster\nname: lab\nnetwork:\n  dnsServiceIP: 10.244.0.10\n" +
		"nodePools:\n- name: win\n  os: windows\n  release: \"2012\"\n"
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := v1alpha1.Load(file)
	if err == nil {
		t.Fatal("the invalid config was accepted")
	}
	got := strings.ReplaceAll("winkube: "+err.Error(), file, "lab.yaml")
	shown := block(t, "docs/up.md", "winkube: cluster config lab.yaml: 2 problem(s):")
	gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	shownLines := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	if len(gotLines) != len(shownLines) {
		t.Fatalf("docs/up.md shows %d lines of the validation error, validation says:\n%s", len(shownLines), got)
	}
	for i, line := range shownLines {
		if !strings.HasPrefix(gotLines[i], strings.TrimSuffix(line, "...")) {
			t.Errorf("docs/up.md's validation line %q differs; validation says:\n%s", line, gotLines[i])
		}
	}
}

// TestREADMEIsAStart keeps README.md a page a newcomer reads: the two
// commands CI runs in its first lines, at most 200 lines, and a link to
// every page of docs/ that exists.
func TestREADMEIsAStart(t *testing.T) {
	readme := readDoc(t, "README.md")
	const head = "# winkube\n\n```sh\ngo run ./cmd/winkube up --apply examples/windows-web-server.yaml\ngo test -timeout 30m ./...\n```\n"
	if !strings.HasPrefix(readme, head) {
		t.Errorf("README.md does not start with the two commands:\n%s", head)
	}
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("README.md has %d lines; at most 200: move reference material to a page of docs/", n)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\((docs/[^)#\s]+\.md)(#[^)\s]*)?\)`).FindAllStringSubmatch(readme, -1) {
		linked[m[1]] = true
		if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
			t.Errorf("README.md links %s, which does not exist", m[1])
		}
	}
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		rel := "docs/" + filepath.Base(p)
		if !linked[rel] {
			t.Errorf("README.md does not link %s", rel)
		}
	}
}

// TestDocsLinks checks every relative link of README.md and docs/*.md:
// the file exists and an anchor names a heading of it, as GitHub makes
// anchors.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(repoRoot, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		anchors[path] = headingAnchors(string(data))
		return anchors[path]
	}
	for _, page := range pages {
		for _, target := range linkTargets(t, page, link) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links %s, which does not exist", page, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
				t.Errorf("%s links %s: %s has no heading with anchor #%s", page, target, path, anchor)
			}
		}
	}
}

// linkTargets returns the targets of page's Markdown links outside
// fenced blocks.
func linkTargets(t *testing.T, page string, link *regexp.Regexp) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var prose strings.Builder
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			prose.WriteString(line + "\n")
		}
	}
	var out []string
	for _, m := range link.FindAllStringSubmatch(prose.String(), -1) {
		out = append(out, m[1])
	}
	return out
}

// headingAnchors are the anchors GitHub gives a page's headings:
// lower case, punctuation dropped, spaces as hyphens, a repeated anchor
// numbered.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '—' && r != '–' && r != '→':
				b.WriteRune(r)
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = b.String() + "-" + strconv.Itoa(i)
		}
		out[a] = true
	}
	return out
}
