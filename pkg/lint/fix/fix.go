// Package fix applies `winkube lint --fix` edits: it adds OS placement
// (spec.os.name, nodeSelector, tolerations) to pod specs in plain YAML
// files, changing as little text as possible so comments and formatting
// survive.
package fix

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/pkg/manifest"
)

// Edit asks for OS placement to be added to one pod spec.
type Edit struct {
	File string
	// Doc is the document index in File, as manifest.Object.Doc reports it.
	Doc int
	// PodSpec is the path to the pod spec in the object, e.g.
	// {"spec","template","spec"}; {"spec"} for a Pod;
	// {"spec","jobTemplate","spec","template","spec"} for a CronJob.
	PodSpec []string
	// OS, when non-empty, sets spec.os.name if it is absent.
	OS string
	// NodeSelector entries are added when their key is missing; existing
	// keys are never changed.
	NodeSelector map[string]string
	// Tolerations are appended when no equal toleration exists.
	Tolerations []corev1.Toleration
}

// Apply groups edits by file and rewrites each file once. With dryRun
// nothing is written and a unified diff of every change goes to out;
// otherwise each changed file is replaced atomically (temp file + rename,
// keeping its mode) and a one-line summary per file goes to out. A file
// that cannot be fixed is left alone, reported in the returned error, and
// does not stop the other files.
func Apply(edits []Edit, dryRun bool, out io.Writer) error {
	var errs []error
	for _, file := range groupByFile(edits) {
		if err := applyFile(file.name, file.edits, dryRun, out); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

type fileEdits struct {
	name  string
	edits []Edit
}

// groupByFile groups edits by file, files in name order and edits in the
// order given, so output is deterministic.
func groupByFile(edits []Edit) []fileEdits {
	index := map[string]int{}
	var files []fileEdits
	for _, e := range edits {
		i, ok := index[e.File]
		if !ok {
			i = len(files)
			index[e.File] = i
			files = append(files, fileEdits{name: e.File})
		}
		files[i].edits = append(files[i].edits, e)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files
}

// applyFile fixes one file and reports the result.
func applyFile(name string, edits []Edit, dryRun bool, out io.Writer) error {
	old, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("fix %s: %w", name, err)
	}
	updated, changedDocs, err := fixFile(name, old, edits)
	if err != nil {
		return err
	}
	if dryRun {
		_, err := io.WriteString(out, UnifiedDiff(filepath.ToSlash(name), old, updated))
		return err
	}
	if changedDocs == 0 {
		_, err := fmt.Fprintf(out, "%s: already fixed, no changes\n", name)
		return err
	}
	if err := writeAtomic(name, updated); err != nil {
		return fmt.Errorf("fix %s: %w", name, err)
	}
	_, err = fmt.Fprintf(out, "%s: fixed %d %s\n", name, changedDocs, plural(changedDocs, "document", "documents"))
	return err
}

// fixFile applies edits to the documents of one file's contents and
// returns the new contents and how many documents changed. Untouched
// documents, separators and comments between documents are copied
// byte for byte.
func fixFile(name string, data []byte, edits []Edit) ([]byte, int, error) {
	byDoc := map[int][]Edit{}
	for _, e := range edits {
		byDoc[e.Doc] = append(byDoc[e.Doc], e)
	}
	docs := manifest.SplitDocuments(data)
	for d := range byDoc {
		if d < 0 || d >= len(docs) {
			return nil, 0, fmt.Errorf("fix %s: no document %d (the file has %d; did it change since it was linted?)", name, d, len(docs))
		}
	}
	var out []byte
	last, changed := 0, 0
	for _, doc := range docs {
		des, ok := byDoc[doc.Index]
		if !ok {
			continue
		}
		text, err := fixDocument(doc.Data, des)
		if err != nil {
			return nil, 0, fmt.Errorf("fix %s:%d: %w", name, doc.Line, err)
		}
		if string(text) == string(doc.Data) {
			continue
		}
		out = append(out, data[last:doc.Offset]...)
		out = append(out, text...)
		last = doc.Offset + len(doc.Data)
		changed++
	}
	return append(out, data[last:]...), changed, nil
}

// writeAtomic replaces name with data through a temporary file in the same
// directory, so a crash leaves either the old or the new file. A symlink
// is followed, so the link stays a link.
func writeAtomic(name string, data []byte) error {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	info, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".winkube-fix-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
