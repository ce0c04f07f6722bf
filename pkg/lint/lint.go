package lint

import (
	"context"
	"errors"
	"fmt"

	clientscheme "k8s.io/client-go/kubernetes/scheme"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/pkg/gmsa"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/lint/strict"
	"github.com/winkube/winkube/pkg/manifest"
	"github.com/winkube/winkube/pkg/rules"
	"github.com/winkube/winkube/pkg/windows"
)

// Linter checks objects against one target cluster. The node list and the
// image lookups are computed once and shared by every object, so a Linter
// should be reused across runs on the same cluster.
type Linter struct {
	target  *Target
	images  map[string]imageinfo.Image
	matches map[matchKey]windows.Verdict
	// resolver, when set, answers image look-ups instead of the catalog
	// (--resolve-images registry); resolveErrs keeps the registry errors
	// of answers that fell back to the catalog, for IMG-3.
	resolver    imageinfo.Resolver
	resolveCtx  context.Context
	resolveErrs map[string]error
}

// UseResolver makes the Linter ask r for image platforms (the registry
// resolver of --resolve-images registry) instead of the built-in catalog.
func (l *Linter) UseResolver(ctx context.Context, r imageinfo.Resolver) {
	l.resolver, l.resolveCtx, l.resolveErrs = r, ctx, map[string]error{}
}

// matchKey identifies one image-on-node question (IMG-2, IMG-4).
type matchKey struct {
	ref  string
	node *Node
}

// New returns a Linter for target.
func New(target *Target) *Linter {
	return &Linter{target: target, images: map[string]imageinfo.Image{}, matches: map[matchKey]windows.Verdict{}}
}

// run is the state of one Lint call.
type run struct {
	*Linter
	runtimeClasses map[string]*nodev1.RuntimeClass
	pods           []*podInfo
	services       []*service
	classes        []*runtimeClass
	index          podIndex
	findings       []Finding
	ignored        int
	edits          []Edit
	errs           []error
	locator        *locator
	gmsa           gmsa.Objects
}

// Lint checks objs and returns the findings, the --fix edits and the
// objects that could not be decoded.
func (l *Linter) Lint(objs []manifest.Object) *Result {
	r := &run{Linter: l, runtimeClasses: map[string]*nodev1.RuntimeClass{}, locator: newLocator()}
	for name, rc := range l.target.RuntimeClasses {
		r.runtimeClasses[name] = rc
	}
	var workloads []*workload
	for i := range objs {
		w := r.collect(&objs[i])
		if w != nil {
			workloads = append(workloads, w)
		}
	}
	for _, w := range workloads {
		r.checkWorkload(w)
	}
	for _, s := range r.services {
		r.checkService(s)
	}
	for _, c := range r.classes {
		r.checkRuntimeClass(c)
	}
	r.locate()
	sortFindings(r.findings)
	return &Result{Findings: r.findings, Objects: len(objs), Unchecked: unknownKinds(objs), Ignored: r.ignored, Edits: r.edits, Errors: r.errs}
}

// unknownKinds names the objects of kinds Kubernetes itself does not
// define (custom resources, a misspelt kind), which no rule looks into, as
// "Kind apiVersion" with their count.
func unknownKinds(objs []manifest.Object) map[string]int {
	var out map[string]int
	for i := range objs {
		gvk := objs[i].Obj.GroupVersionKind()
		if gvk.Kind == "" || clientscheme.Scheme.Recognizes(gvk) || gvk.Group == gmsa.Group && gvk.Kind == gmsa.Kind {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[gvk.Kind+" "+gvk.GroupVersion().String()]++
	}
	return out
}

// collect decodes one object into the run: workloads are returned for the
// second pass, Services and RuntimeClasses are kept, other kinds are only
// checked for a removed apiVersion.
func (r *run) collect(src *manifest.Object) *workload {
	r.checkRemovedAPI(src)
	r.checkIgnore(src)
	w, ok, err := decodeWorkload(src)
	if err != nil {
		r.decodeError(src, err)
		return nil
	}
	if ok {
		r.reportUnknownFields(&w.object)
		return w
	}
	if r.collectGMSA(src) {
		return nil
	}
	switch src.Obj.GetKind() {
	case "Service":
		s, err := decodeService(src)
		if err != nil {
			r.decodeError(src, err)
			return nil
		}
		r.reportUnknownFields(&s.object)
		r.services = append(r.services, s)
	case "RuntimeClass":
		rc := &nodev1.RuntimeClass{}
		o := newObject(src)
		if err := o.convert(src.Obj, rc); err != nil {
			r.decodeError(src, fmt.Errorf("decoding RuntimeClass %s: %w", src.Obj.GetName(), err))
			return nil
		}
		r.reportUnknownFields(&o)
		r.runtimeClasses[rc.Name] = rc
		r.classes = append(r.classes, &runtimeClass{object: o, rc: rc})
	}
	return nil
}

// decodeError records an object that does not decode, at the line of the
// field with the wrong type when the error names one.
func (r *run) decodeError(src *manifest.Object, err error) {
	line := src.Line
	var fe *strict.FieldTypeError
	if errors.As(err, &fe) && line > 0 && src.Doc >= 0 {
		if l := r.locator.keyLine(src, fe.Path); l > 0 {
			line = l
		}
	}
	r.errs = append(r.errs, &manifest.InputError{File: src.File, Line: line, Err: err})
}

// checkWorkload runs every pod check on one workload.
func (r *run) checkWorkload(w *workload) {
	p := r.place(w)
	r.pods = append(r.pods, p)
	r.checkPodRules(p)
	r.checkAnnotations(w)
	r.checkGMSA(w)
	r.checkPlacement(p)
}

// report records a finding of rule in the named case ("" for the rule's
// usual one) with the rule book's severity and see-also, and the fix the
// check names (the rule book's when fix is "").
func (r *run) report(o *object, rule, kase, at, message, fix string) {
	r.record(o, at, rules.New(rule, kase, message).WithFix(fix))
}

// record keeps a finding unless the object's annotation silences it. at
// is the field the finding is about ("" for the whole object): the
// message is shown after it, and the finding's line becomes that field's
// line later (see locate).
func (r *run) record(o *object, at string, f rules.Finding) {
	if o.ignore[f.Rule] {
		r.ignored++
		return
	}
	if at != "" {
		f.Message = at + ": " + f.Message
	}
	r.findings = append(r.findings, Finding{
		Finding: f,
		File:    o.src.File, Line: o.src.Line,
		Kind: o.kind, Namespace: o.namespace, Name: o.name,
		src: o.src, path: at,
	})
}

// locate moves each finding to the line of its field in plain files, or
// for a finding without a field path inside a List or array, to the line
// of its item (JSON items otherwise share the line of their container).
func (r *run) locate() {
	l := r.locator
	for i := range r.findings {
		f := &r.findings[i]
		if (f.path == "" && f.src.Root == "") || f.Line == 0 || f.src.Doc < 0 {
			continue
		}
		line := l.line(f.src, f.path)
		if f.Rule == "API-10" {
			line = l.keyLine(f.src, f.path) // the key is what is wrong
		}
		if line > 0 {
			f.Line = line
		}
	}
}

// image looks an image up once per run of the Linter.
func (l *Linter) image(ref string) imageinfo.Image {
	if img, ok := l.images[ref]; ok {
		return img
	}
	var img imageinfo.Image
	if l.resolver == nil {
		img = imageinfo.Lookup(ref)
	} else {
		a := l.resolver.Resolve(l.resolveCtx, imageinfo.Request{Ref: ref})
		img = a.Image
		if a.Err != nil {
			l.resolveErrs[ref] = a.Err
		}
	}
	l.images[ref] = img
	return img
}

// runsOn is the rule book's verdict on the image and the node
// (windows.ImageOnHost), asked once per image and node. An image outside
// the catalog is taken to run anywhere: the IMG-3 finding says it was not
// checked.
func (l *Linter) runsOn(pi *podImage, n *Node) windows.Verdict {
	if pi.unknown {
		return windows.Verdict{Runs: true}
	}
	key := matchKey{ref: pi.ref, node: n}
	if v, ok := l.matches[key]; ok {
		return v
	}
	v := pi.img.OnHost(n.Host())
	l.matches[key] = v
	return v
}

// Edit is one placement fix for --fix: the fields of fix.Edit.
type Edit struct {
	File         string
	Doc          int
	PodSpec      []string
	OS           string
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
}
