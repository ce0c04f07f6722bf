package windows

import (
	"errors"
	"fmt"
	"strings"
)

// The two IMG-4 failures, in the words the runtime uses. Test with
// errors.Is on Verdict.Err.
var (
	// ErrNoMatchingPlatform: no entry of the image is pulled for the
	// node; the kubelet shows ErrImagePull.
	ErrNoMatchingPlatform = errors.New("no match for platform in manifest")
	// ErrOSVersionMismatch: a Windows image of a build the host cannot
	// run process-isolated (HCS error 0xc0370101).
	ErrOSVersionMismatch = errors.New("The container operating system does not match the host operating system.")
)

// FailureStage reads a runtime's error message (an event's, a container
// status's) for the two IMG-4 failures: HCS refusing the image's build at
// start (ErrOSVersionMismatch, as containerd and Docker wrap it) or a pull
// that finds no entry for the host (containerd's ErrNoMatchingPlatform,
// Docker's "no matching manifest for windows/amd64 ..."). ok is false for
// any other message.
func FailureStage(message string) (stage Stage, ok bool) {
	switch {
	case strings.Contains(message, "operating system does not match"):
		return StageStart, true
	case strings.Contains(message, ErrNoMatchingPlatform.Error()), strings.Contains(message, "no matching manifest for windows"):
		return StagePull, true
	}
	return "", false
}

// Stage is where an image that does not fit its host fails (IMG-4).
type Stage string

const (
	// StagePull: the runtime finds no entry to pull (ErrImagePull).
	StagePull Stage = "pull"
	// StageStart: the entry pulls, then HCS refuses to start it
	// (RunContainerError, then CrashLoopBackOff).
	StageStart Stage = "start"
	// StageSandbox: the pause image does not fit, so the pod sandbox never
	// starts (FailedCreatePodSandBox; IMG-5).
	StageSandbox Stage = "sandbox"
)

// Cause is what of the host the image lacks.
type Cause string

const (
	// CauseOS: no entry for the host's OS at all.
	CauseOS Cause = "os"
	// CauseArch: entries for the OS, none for the architecture.
	CauseArch Cause = "arch"
	// CauseBuild: Windows entries, none of a build the host runs (IMG-2).
	CauseBuild Cause = "build"
)

// Verdict says whether an image runs on a host and, when not, which rule
// says no, where it fails on the host's runtime and in what words.
type Verdict struct {
	// Runs is true when the image pulls and starts.
	Runs bool
	// Entry is the entry the runtime pulls; zero when the pull fails.
	Entry Platform
	// Rule is IMG-4 for a missing OS or architecture, IMG-2 for a build
	// the host cannot run, IMG-5 for a sandbox image that does not fit.
	Rule string
	// Cause is what the image lacks.
	Cause Cause
	// Stage is where it fails on this host's runtime.
	Stage Stage
	// Reason is the kubelet's reason: ErrImagePull, RunContainerError or
	// FailedCreatePodSandBox.
	Reason string
	// Words are upstream's words for the failure: the runtime's pull error
	// or HCS's start error.
	Words string
	// Detail explains the failure in one sentence (what the image offers,
	// what the host is, what the node shows).
	Detail string
}

// Err is the verdict as an error: nil when the image runs. It matches
// ErrOSVersionMismatch for a build mismatch (at either stage) and
// ErrNoMatchingPlatform when nothing pulls, with errors.Is.
func (v Verdict) Err() error {
	if v.Runs {
		return nil
	}
	return verdictError{v}
}

type verdictError struct{ v Verdict }

func (e verdictError) Error() string { return e.v.Detail }

func (e verdictError) Is(target error) bool {
	switch target {
	case ErrOSVersionMismatch:
		return e.v.Cause == CauseBuild
	case ErrNoMatchingPlatform:
		return e.v.Entry.OS == "" // nothing was pulled
	}
	return false
}

// ImageOnHost implements IMG-2, IMG-4 and IMG-5: whether an image runs on
// a host, and if not, why, where and in whose words. The runtime decides
// the stage: containerd keeps only the index entries the build runs and
// fails the pull; Docker pulls the newest entry not newer than the host
// and fails at start; a single-platform image always pulls and fails at
// start. A zero host build accepts every Windows entry (the build is not
// known); an entry without os.version matches any build.
func ImageOnHost(img ImagePlatforms, h Host) Verdict {
	v := imageOnHost(img, h)
	if img.Sandbox && !v.Runs {
		v.Rule, v.Stage, v.Reason = "IMG-5", StageSandbox, "FailedCreatePodSandBox"
		v.Detail = "the pod sandbox (pause) image does not run on the node: " + v.Detail
	}
	return v
}

func imageOnHost(img ImagePlatforms, h Host) Verdict {
	os, arch := NormaliseOS(h.OS), NormaliseArch(h.Arch)
	candidates := entriesFor(img.Platforms, os, arch)
	if len(candidates) == 0 {
		cause := CauseArch
		if len(entriesOfOS(img.Platforms, os)) == 0 {
			cause = CauseOS
		}
		return pullFailure(h, "IMG-4", cause, fmt.Sprintf("%s: %s offers %s, not %s/%s",
			ErrNoMatchingPlatform, img.Ref, DescribePlatforms(img.Platforms), os, arch))
	}
	if os != "windows" || h.Build.IsZero() {
		return Verdict{Runs: true, Entry: bestEntry(candidates)}
	}
	pulls := candidates
	// A single-platform image has one platform; more can only be an index.
	if img.Index || len(img.Platforms) > 1 {
		pulls = pullable(candidates, h.Runtime, h.Build)
	}
	if len(pulls) == 0 {
		return pullFailure(h, "IMG-2", CauseBuild, buildPullDetail(img, h, candidates))
	}
	entry := bestEntry(pulls)
	if entryRuns(entry, h.Build) {
		return Verdict{Runs: true, Entry: entry}
	}
	return Verdict{Entry: entry, Rule: "IMG-2", Cause: CauseBuild, Stage: StageStart, Reason: "RunContainerError",
		Words: ErrOSVersionMismatch.Error(), Detail: buildStartDetail(img, h, candidates, entry)}
}

func pullFailure(h Host, rule string, cause Cause, detail string) Verdict {
	return Verdict{Rule: rule, Cause: cause, Stage: StagePull, Reason: "ErrImagePull", Words: pullWords(h), Detail: detail}
}

// pullWords are the runtime's words for a pull with no entry for the host.
func pullWords(h Host) string {
	if IsDocker(h.Runtime) {
		return fmt.Sprintf("no matching manifest for %s in the manifest list entries", h.Platform())
	}
	return ErrNoMatchingPlatform.Error() + ": not found"
}

func buildPullDetail(img ImagePlatforms, h Host, candidates []Platform) string {
	runtime := "containerd"
	if IsDocker(h.Runtime) {
		runtime = "Docker"
	}
	return fmt.Sprintf("image index %s has no entry for Windows %s (it offers %s): a %s node fails the pull with %q (ErrImagePull, then ImagePullBackOff)",
		img.Ref, h.Build.Label(), describeBuilds(candidates), runtime, pullWords(h))
}

func buildStartDetail(img ImagePlatforms, h Host, candidates []Platform, entry Platform) string {
	if !img.Index && len(img.Platforms) == 1 {
		return fmt.Sprintf("%s is a single-platform image for Windows %s, the node runs %s: it pulls, then the container fails to start with %q (HCS 0xc0370101; RunContainerError, then CrashLoopBackOff)",
			img.Ref, describeBuilds(candidates), h.Build.Label(), ErrOSVersionMismatch.Error())
	}
	return fmt.Sprintf("image index %s has no entry for Windows %s (it offers %s): a Docker node pulls the entry %s, then the container fails to start with %q (HCS 0xc0370101; RunContainerError, then CrashLoopBackOff)",
		img.Ref, h.Build.Label(), describeBuilds(candidates), entry, ErrOSVersionMismatch.Error())
}

func entriesOfOS(ps []Platform, os string) []Platform {
	var out []Platform
	for _, p := range ps {
		if NormaliseOS(p.OS) == os {
			out = append(out, p)
		}
	}
	return out
}

// RuleForPod is the rule a pod breaks when one of its images gets this
// verdict on a node it can land on: SCH-5 when the image lacks the node's
// OS or architecture and the pod pins no OS (the missing selector let it
// land there), the verdict's own rule otherwise.
func (v Verdict) RuleForPod(pinsOS bool) string {
	if !v.Runs && v.Cause != CauseBuild && !pinsOS && v.Rule == "IMG-4" {
		return "SCH-5"
	}
	return v.Rule
}

// MoreTelling reports whether next, an image's verdict on one more host,
// says more than cur about why the image fails in the cluster: a failure
// for want of the host's OS says least (a wrong build or architecture
// names what to change), so the first other failure replaces it. cur
// with Runs set is no failure yet.
func MoreTelling(cur, next Verdict) bool {
	return !next.Runs && (cur.Runs || (cur.Cause == CauseOS && next.Cause != CauseOS))
}
