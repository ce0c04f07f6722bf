// Package manifest turns the inputs of `winkube lint` and `winkube up
// --apply` (manifest files, directories, Helm charts, Kustomize trees and
// stdin) into Kubernetes objects that remember where they came from.
package manifest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Object is one Kubernetes object and where it came from.
type Object struct {
	// File is the path as the user gave it (or "<stdin>"). For Helm it is
	// "<chart dir>/templates/x.yaml", the template the object was rendered
	// from; for Kustomize it is the kustomization directory.
	File string
	// Line is the 1-based line of File where the object's document starts:
	// the line of its first key (comments and the '---' separator come
	// before it). An item of a List, or an element of a top-level array,
	// has the line of its own first key in YAML; in JSON it keeps the line
	// of the value that holds it. 0 when unknown (rendered Helm and
	// Kustomize output).
	Line int
	// Doc is the 0-based index of the document within File, counting only
	// documents with content (see SplitDocuments); -1 for rendered objects.
	Doc int
	// Root is where the object sits inside its document, as a field path:
	// "" for the whole document, "items[2]" for the third item of a List,
	// "[1]" for the second element of a top-level array. Field paths of
	// findings are relative to it.
	Root string
	// Obj holds the object with JSON-compatible values (int64, float64,
	// string, bool, nil, map[string]any, []any).
	Obj *unstructured.Unstructured
	// Fixable is true only for objects that --fix may rewrite in place:
	// documents of plain YAML files and the List items in them (not JSON,
	// stdin, elements of a top-level array or rendered output).
	Fixable bool
	// Tree is the parsed value of the YAML document the object came from
	// (the whole List or array when Root is set), and TreeLine the line
	// of File where the tree's line 1 is. Lint finds the lines of fields
	// in it rather than parsing the file a second time. Tree is nil for
	// JSON and rendered objects.
	Tree     *yaml.Node
	TreeLine int
}

// Options tune Load.
type Options struct {
	Stdin      io.Reader // read for the path "-"
	ValueFiles []string  // helm --values, applied to every chart found
	Set        []string  // helm --set (strvals syntax)
	Namespace  string    // Helm release namespace; "default" when empty
}

// InputError is a problem with one input: a file, a document or a chart.
type InputError struct {
	File string
	Line int // 0 when the problem has no line (a chart that fails to render)
	Err  error
}

// Error reads "file:line: message", or "file: message" without a line.
func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// StdinName is the File of objects read from "-".
const StdinName = "<stdin>"

// Load reads every path: manifest files (.yaml, .yml, .json), directories
// (recursively, skipping hidden entries; a directory with Chart.yaml is
// rendered as a Helm chart, one with a kustomization file is built with
// Kustomize, and nothing below either is loaded as a raw file) and "-" for
// stdin. Multi-document YAML, JSON arrays and List kinds are flattened.
// A bad input yields an *InputError and the other inputs are still loaded.
// Objects come out sorted by file, then in document order.
func Load(paths []string, opts Options) ([]Object, []error) {
	l := loader{opts: opts}
	for _, p := range paths {
		l.path(p)
	}
	sort.SliceStable(l.objs, func(i, j int) bool { return l.objs[i].File < l.objs[j].File })
	sort.SliceStable(l.errs, func(i, j int) bool { return errorKey(l.errs[i]) < errorKey(l.errs[j]) })
	return l.objs, l.errs
}

// loader collects objects and errors across all paths.
type loader struct {
	opts Options
	objs []Object
	errs []error
}

func (l *loader) add(objs []Object, errs []error) {
	l.objs = append(l.objs, objs...)
	for _, err := range errs {
		if err != nil {
			l.errs = append(l.errs, err)
		}
	}
}

func (l *loader) fail(file string, err error) {
	l.errs = append(l.errs, &InputError{File: file, Err: err})
}

// path loads one command-line argument.
func (l *loader) path(p string) {
	if p == "-" {
		l.stdin()
		return
	}
	info, err := os.Stat(p)
	if err != nil {
		l.fail(p, err)
		return
	}
	if info.IsDir() {
		l.dir(p)
		return
	}
	// Naming Chart.yaml or kustomization.yaml means "render this".
	if dir := filepath.Dir(p); renderKind(filepath.Base(p)) != "" {
		l.rendered(dir, renderKind(filepath.Base(p)))
		return
	}
	l.file(p)
}

func (l *loader) stdin() {
	if l.opts.Stdin == nil {
		l.fail(StdinName, fmt.Errorf("no standard input available"))
		return
	}
	data, err := io.ReadAll(l.opts.Stdin)
	if err != nil {
		l.fail(StdinName, err)
		return
	}
	stdinData.Store(&data)
	l.add(parseYAML(source{file: StdinName}, data))
}

// stdinData is what Load last read from standard input, which cannot be
// read twice.
var stdinData atomic.Pointer[[]byte]

// ReadSource reads the file an Object names, as it was loaded: for
// StdinName, what Load read from standard input. Callers that look up
// positions in the source (lint's field lines) read it here.
func ReadSource(file string) ([]byte, error) {
	if file == StdinName {
		if data := stdinData.Load(); data != nil {
			return *data, nil
		}
		return nil, fmt.Errorf("%s was not read", StdinName)
	}
	return os.ReadFile(file)
}

// file loads a manifest file named on the command line or found in a
// directory walk; the extension picks the parser.
func (l *loader) file(p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		l.fail(p, err)
		return
	}
	if strings.EqualFold(filepath.Ext(p), ".json") {
		l.add(parseJSON(p, data))
		return
	}
	l.add(parseYAML(source{file: p, fixable: true}, data))
}

// dir walks a directory. Entries are visited in lexical order, so the
// output order is stable.
func (l *loader) dir(root string) {
	if kind := dirRenderKind(root); kind != "" {
		l.rendered(root, kind)
		return
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			l.fail(p, err)
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if kind := dirRenderKind(p); p != root && kind != "" {
				l.rendered(p, kind)
				return filepath.SkipDir
			}
			return nil
		}
		if isManifestName(p) && isRegularFile(p, d) {
			l.file(p)
		}
		return nil
	})
	if err != nil {
		l.fail(root, err)
	}
}

// rendered renders a Helm chart or a kustomization.
func (l *loader) rendered(dir, kind string) {
	switch kind {
	case "helm":
		l.add(renderHelm(dir, l.opts))
	case "kustomize":
		l.add(renderKustomize(dir))
	}
}

// kustomizationNames are the file names kustomize accepts.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// renderKind says which renderer a file name calls for, or "".
func renderKind(name string) string {
	if name == "Chart.yaml" {
		return "helm"
	}
	for _, k := range kustomizationNames {
		if name == k {
			return "kustomize"
		}
	}
	return ""
}

// dirRenderKind says whether dir is a Helm chart or a kustomization. A
// directory that is both is treated as a chart.
func dirRenderKind(dir string) string {
	for _, name := range append([]string{"Chart.yaml"}, kustomizationNames...) {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && !info.IsDir() {
			return renderKind(name)
		}
	}
	return ""
}

func isManifestName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// isRegularFile follows a symlink to a file; symlinked directories are not
// followed, which keeps the walk free of loops.
func isRegularFile(p string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// errorKey sorts errors by file, then line.
func errorKey(err error) string {
	if ie, ok := err.(*InputError); ok {
		return fmt.Sprintf("%s\x00%010d", ie.File, ie.Line)
	}
	return err.Error()
}

// Rendered lists the Helm charts and Kustomize directories among paths as
// Load finds them, each with its kind ("helm" or "kustomize"): what --fix
// cannot rewrite in place.
func Rendered(paths []string) map[string]string {
	found := map[string]string{}
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case p == "-" || err != nil:
		case !info.IsDir():
			if kind := renderKind(filepath.Base(p)); kind != "" {
				found[filepath.Dir(p)] = kind
			}
		default:
			_ = filepath.WalkDir(p, func(d string, e fs.DirEntry, err error) error {
				if err != nil || !e.IsDir() {
					return nil
				}
				if d != p && strings.HasPrefix(e.Name(), ".") {
					return filepath.SkipDir
				}
				if kind := dirRenderKind(d); kind != "" {
					found[d] = kind
					return filepath.SkipDir
				}
				return nil
			})
		}
	}
	return found
}
