package gmsa

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The webhook's endpoints (upstream's paths).
const (
	MutatePath   = "/mutate"
	ValidatePath = "/validate"
	HealthPath   = "/health"
)

// maxReviewBytes bounds a request body, as pkg/webhook does.
const maxReviewBytes = 8 << 20

// CredSpecs is what the webhook asks the cluster (upstream's
// kubeClientInterface).
type CredSpecs interface {
	// IsAuthorizedToUseCredSpec says whether the service account may `use`
	// the named GMSACredentialSpec, and why not when it may not.
	IsAuthorizedToUseCredSpec(ctx context.Context, serviceAccountName, namespace, credSpecName string) (authorized bool, reason string)
	// RetrieveCredSpecContents is the spec's `credspec` as JSON; on error
	// also the HTTP code of the refusal.
	RetrieveCredSpecContents(ctx context.Context, credSpecName string) (contents string, httpCode int, err error)
}

// Webhook answers AdmissionReviews of pods on /mutate and /validate.
type Webhook struct {
	specs CredSpecs
	// Logf, when set, receives a line per refusal (upstream logs them).
	Logf func(format string, args ...any)
}

// New returns the webhook answering from specs (NewKubeCredSpecs for a
// cluster).
func New(specs CredSpecs) *Webhook { return &Webhook{specs: specs} }

type operation string

const (
	validate operation = "VALIDATE"
	mutate   operation = "MUTATE"
)

type resourceKind string

const (
	podKind       resourceKind = "pod"
	containerKind resourceKind = "container"
)

// admissionError is upstream's podAdmissionError: the refusal and its
// code, with the rule of the book it enforces and where (Review).
type admissionError struct {
	error
	code int
	rule string
	at   where
}

// where is the windowsOptions a refusal is about: the pod's (container
// -1) or a container's, and which field.
type where struct {
	container int
	field     string
}

func refuse(code int, format string, args ...any) *admissionError {
	return &admissionError{error: fmt.Errorf(format, args...), code: code}
}

// ServeHTTP routes the endpoints, checks the method and content type, and
// answers an AdmissionReview (v1) with the same UID.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var op operation
	switch r.URL.Path {
	case ValidatePath:
		op = validate
	case MutatePath:
		op = mutate
	case HealthPath:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if !strings.EqualFold(r.Method, http.MethodPost) {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		w.WriteHeader(http.StatusUnsupportedMediaType)
		return
	}
	resp := wh.review(r.Context(), r.Body, op)
	out := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{Kind: "AdmissionReview", APIVersion: "admission.k8s.io/v1"},
		Response: resp,
	}
	body, err := json.Marshal(out)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (wh *Webhook) review(ctx context.Context, body io.Reader, op operation) *admissionv1.AdmissionResponse {
	data, err := io.ReadAll(io.LimitReader(body, maxReviewBytes))
	if err != nil {
		return wh.denied(refuse(http.StatusBadRequest, "couldn't read request body: %v", err))
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return wh.denied(refuse(http.StatusBadRequest, "unable to unmarshall JSON body as an admission review: %v", err))
	}
	if review.Request == nil {
		return wh.denied(refuse(http.StatusBadRequest, "no 'Request' field in JSON body"))
	}
	resp, aerr := wh.admit(ctx, review.Request, op == mutate)
	if aerr != nil {
		resp = wh.denied(aerr)
	}
	resp.UID = review.Request.UID
	return resp
}

// admit is the answer to one request: the mutating webhook's when
// mutating, else the validating one's. A refusal is returned as an error
// carrying upstream's message and code.
func (wh *Webhook) admit(ctx context.Context, req *admissionv1.AdmissionRequest, mutating bool) (*admissionv1.AdmissionResponse, *admissionError) {
	if req.Kind.Kind != "Pod" {
		return nil, refuse(http.StatusBadRequest, "expected a Pod object, got a %v", req.Kind.Kind)
	}
	pod, err := unmarshalPod(req.Object)
	if err != nil {
		return nil, err
	}
	switch req.Operation {
	case admissionv1.Create:
		if mutating {
			return wh.mutateCreate(ctx, pod)
		}
		return wh.validateCreate(ctx, pod, req.Namespace)
	case admissionv1.Update:
		if !mutating {
			old, err := unmarshalPod(req.OldObject)
			if err != nil {
				return nil, err
			}
			return validateUpdate(pod, old)
		}
		// upstream validates updates and mutates nothing on them
		return &admissionv1.AdmissionResponse{Allowed: true}, nil
	default:
		return nil, refuse(http.StatusBadRequest, "unpexpected operation %s", req.Operation)
	}
}

func unmarshalPod(obj runtime.RawExtension) (*corev1.Pod, *admissionError) {
	pod := &corev1.Pod{}
	if err := json.Unmarshal(obj.Raw, pod); err != nil {
		return nil, refuse(http.StatusBadRequest, "unable to unmarshall pod JSON object: %v", err)
	}
	return pod, nil
}

// validateCreate: every GMSA name the pod or a container sets must be one
// the pod's service account may `use`, and contents set with it must be
// the named spec's; contents without a name are refused.
func (wh *Webhook) validateCreate(ctx context.Context, pod *corev1.Pod, namespace string) (*admissionv1.AdmissionResponse, *admissionError) {
	err := eachWindowsOptions(pod, func(opts *corev1.WindowsSecurityContextOptions, kind resourceKind, name string, i int) *admissionError {
		if specName := opts.GMSACredentialSpecName; specName != nil {
			if ok, reason := wh.specs.IsAuthorizedToUseCredSpec(ctx, pod.Spec.ServiceAccountName, namespace, *specName); !ok {
				msg := fmt.Sprintf("service account %q is not authorized to `use` GMSA cred spec %q", pod.Spec.ServiceAccountName, *specName)
				if reason != "" {
					msg += fmt.Sprintf(", reason: %q", reason)
				}
				return &admissionError{error: fmt.Errorf("%s", msg), code: http.StatusForbidden, rule: "GMSA-2", at: where{i, fieldName}}
			}
			if contents := opts.GMSACredentialSpec; contents != nil {
				expected, code, err := wh.specs.RetrieveCredSpecContents(ctx, *specName)
				if err != nil {
					return &admissionError{error: err, code: code, rule: "GMSA-1", at: where{i, fieldName}}
				}
				if equal, cmpErr := EqualContents(*contents, expected); !equal || cmpErr != nil {
					msg := fmt.Sprintf("the GMSA cred spec contents for %s %q does not match the contents of GMSA resource %q", kind, name, *specName)
					if cmpErr != nil {
						msg += fmt.Sprintf(": %v", cmpErr)
					}
					return &admissionError{error: fmt.Errorf("%s", msg), code: http.StatusUnprocessableEntity, rule: "GMSA-3", at: where{i, fieldContents}}
				}
			}
		} else if opts.GMSACredentialSpec != nil {
			e := refuse(http.StatusUnprocessableEntity, "%s %q has a GMSA cred spec set, but does not define the name of the corresponding resource", kind, name)
			e.rule, e.at = "GMSA-3", where{i, fieldContents}
			return e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &admissionv1.AdmissionResponse{Allowed: true}, nil
}

// EqualContents is upstream's compareCredSpecContents: the same string, or
// the same JSON object.
func EqualContents(fromPod, fromSpec string) (bool, error) {
	if fromPod == fromSpec {
		return true, nil
	}
	var a, b map[string]any
	if err := json.Unmarshal([]byte(fromPod), &a); err != nil {
		return false, fmt.Errorf("unable to parse %q as a JSON object: %v", fromPod, err)
	}
	if err := json.Unmarshal([]byte(fromSpec), &b); err != nil {
		return false, fmt.Errorf("unable to parse CRD %q as a JSON object: %v", fromSpec, err)
	}
	return reflect.DeepEqual(a, b), nil
}

// mutateCreate adds each named spec's contents where the pod or a
// container names it without contents; contents set already are left for
// the validating webhook to compare.
func (wh *Webhook) mutateCreate(ctx context.Context, pod *corev1.Pod) (*admissionv1.AdmissionResponse, *admissionError) {
	var patches []map[string]string
	err := eachWindowsOptions(pod, func(opts *corev1.WindowsSecurityContextOptions, kind resourceKind, _ string, i int) *admissionError {
		specName := opts.GMSACredentialSpecName
		if specName == nil || opts.GMSACredentialSpec != nil {
			return nil
		}
		contents, code, err := wh.specs.RetrieveCredSpecContents(ctx, *specName)
		if err != nil {
			return &admissionError{error: err, code: code, rule: "GMSA-1", at: where{i, fieldName}}
		}
		partial := ""
		if kind == containerKind {
			partial = fmt.Sprintf("/containers/%d", i)
		}
		patches = append(patches, map[string]string{
			"op":    "add",
			"path":  fmt.Sprintf("/spec%s/securityContext/windowsOptions/gmsaCredentialSpec", partial),
			"value": contents,
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	resp := &admissionv1.AdmissionResponse{Allowed: true}
	if len(patches) > 0 {
		data, err := json.Marshal(patches)
		if err != nil {
			return nil, refuse(http.StatusInternalServerError, "unable to marshall patch JSON %v: %v", patches, err)
		}
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = data, &pt
	}
	return resp, nil
}

// validateUpdate refuses any change of a GMSA name or contents.
func validateUpdate(pod, old *corev1.Pod) (*admissionv1.AdmissionResponse, *admissionError) {
	var oldContainers map[string]*corev1.WindowsSecurityContextOptions
	err := eachWindowsOptions(pod, func(opts *corev1.WindowsSecurityContextOptions, kind resourceKind, name string, _ int) *admissionError {
		var before *corev1.WindowsSecurityContextOptions
		if kind == podKind {
			if old.Spec.SecurityContext != nil {
				before = old.Spec.SecurityContext.WindowsOptions
			}
		} else {
			if oldContainers == nil {
				oldContainers = map[string]*corev1.WindowsSecurityContextOptions{}
				_ = eachWindowsOptions(old, func(o *corev1.WindowsSecurityContextOptions, k resourceKind, n string, _ int) *admissionError {
					if k == containerKind {
						oldContainers[n] = o
					}
					return nil
				})
			}
			before = oldContainers[name]
		}
		if before == nil {
			before = &corev1.WindowsSecurityContextOptions{}
		}
		var modified []string
		if !equalPtr(opts.GMSACredentialSpecName, before.GMSACredentialSpecName) {
			modified = append(modified, "name")
		}
		if !equalPtr(opts.GMSACredentialSpec, before.GMSACredentialSpec) {
			modified = append(modified, "contents")
		}
		if len(modified) > 0 {
			e := refuse(http.StatusForbidden, "cannot update an existing pod's GMSA settings (GMSA %s modified on %s %q)", strings.Join(modified, " and "), kind, name)
			e.rule = "GMSA-3"
			return e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &admissionv1.AdmissionResponse{Allowed: true}, nil
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// eachWindowsOptions calls f on the pod's windowsOptions, then on each
// regular container's (upstream looks at neither init nor ephemeral
// containers); i is the container's index, -1 for the pod.
func eachWindowsOptions(pod *corev1.Pod, f func(opts *corev1.WindowsSecurityContextOptions, kind resourceKind, name string, i int) *admissionError) *admissionError {
	if sc := pod.Spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		if err := f(sc.WindowsOptions, podKind, pod.Name, -1); err != nil {
			return err
		}
	}
	for i, c := range pod.Spec.Containers {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			if err := f(c.SecurityContext.WindowsOptions, containerKind, c.Name, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// denied is upstream's deniedAdmissionResponse.
func (wh *Webhook) denied(err *admissionError) *admissionv1.AdmissionResponse {
	if wh.Logf != nil {
		wh.Logf("refusing to admit with code %d: %v", err.code, err)
	}
	return &admissionv1.AdmissionResponse{
		Allowed: false,
		Result:  &metav1.Status{Message: err.Error(), Code: int32(err.code)},
	}
}
