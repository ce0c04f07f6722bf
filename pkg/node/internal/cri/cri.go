// Package cri is the emulated container runtime behind an emulated node: it
// decides whether an image pulls and whether a container or sandbox can be
// created on a host, and words each failure the way containerd or Docker on
// that host would (IMG-2, IMG-4, IMG-5). It does no I/O.
package cri

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/windows"
)

// Runtime names (KLT-10).
const (
	Containerd = "containerd"
	Docker     = "docker"
)

// Runtime is one node's container runtime.
type Runtime struct {
	// Name is "containerd" or "docker".
	Name string
	// Version is the runtime's version without the scheme, e.g. "1.7.20".
	Version string
	// OS and Arch are the host platform, e.g. "windows", "amd64".
	OS, Arch string
	// Build is the host's Windows build; zero on Linux.
	Build windows.Build
}

// VersionString is node.status.nodeInfo.containerRuntimeVersion (KLT-1),
// e.g. "containerd://1.7.20".
func (r Runtime) VersionString() string { return r.Name + "://" + r.Version }

// IDPrefix is the scheme of container IDs in pod status.
func (r Runtime) IDPrefix() string { return r.Name + "://" }

// PullError is a failed image pull: the kubelet shows ErrImagePull and then
// ImagePullBackOff.
type PullError struct{ Message string }

func (e *PullError) Error() string { return e.Message }

// CreateError is a failed container creation: the kubelet shows
// CreateContainerError.
type CreateError struct{ Message string }

func (e *CreateError) Error() string { return e.Message }

// StartError is a container that was created but failed to start: the
// kubelet shows RunContainerError and the runtime reports the container
// exited with code 128, reason StartError.
type StartError struct{ Message string }

func (e *StartError) Error() string { return e.Message }

// StartErrorExitCode is the exit code containerd reports for a container
// whose task could not be created.
const StartErrorExitCode = 128

// SandboxError is a failed pod sandbox: the kubelet emits
// FailedCreatePodSandBox and the pod stays ContainerCreating.
type SandboxError struct{ Message string }

func (e *SandboxError) Error() string { return e.Message }

// Pulled describes a successful pull.
type Pulled struct {
	// Ref is the normalised reference, e.g. docker.io/library/nginx:latest.
	Ref string
	// ImageID is the digest reference shown as containerStatuses[].imageID.
	ImageID string
	// Size is the image size in bytes, for the Pulled event.
	Size int64
	// Duration is how long the pull takes.
	Duration time.Duration
	// Platform is the index entry (or the single image's platform) pulled.
	Platform imageinfo.Platform
	// Config is the image's config when its source had it (an imported
	// image); nil otherwise.
	Config *imageinfo.Config
}

// Pull resolves image for this host with the runtime's platform matcher
// (IMG-4): containerd refuses an index without an entry for the host's
// build, Docker one without an entry that is not newer than the host, and
// both an image without an entry for the host's OS and architecture. What
// is pulled may still fail to start (StartContainer).
func (r Runtime) Pull(image string) (Pulled, error) {
	return r.PullImage(imageinfo.Lookup(image))
}

// PullImage is Pull of an image already resolved (from a registry, say).
func (r Runtime) PullImage(img imageinfo.Image) (Pulled, error) {
	if img.Missing != nil {
		return Pulled{}, &PullError{Message: r.missingMessage(img)}
	}
	p, err := imageinfo.PullPlatform(img, r.Name, r.OS, r.Arch, r.Build)
	if err != nil {
		return Pulled{}, &PullError{Message: r.noMatchMessage(img)}
	}
	return pulled(img, p), nil
}

// pulled is the pull of img's entry p.
func pulled(img imageinfo.Image, p imageinfo.Platform) Pulled {
	return Pulled{
		Ref:      img.Ref(),
		ImageID:  img.Repository + "@sha256:" + digestOf(img.Ref()),
		Size:     imageSize(img),
		Duration: pullDuration(img.Ref()),
		Platform: p,
		Config:   img.Config,
	}
}

// PullUnverified is the pull of an image whose platforms nobody can tell
// (neither the catalog nor a registry answered): it is taken as made for
// this host, since it runs where it landed on a real node too if it is.
func (r Runtime) PullUnverified(img imageinfo.Image) Pulled {
	p := imageinfo.Platform{OS: r.OS, Architecture: r.Arch}
	if !r.Build.IsZero() {
		p.OSVersion = r.Build.String()
	}
	return pulled(img, p)
}

// UnresolvedMessage words a pull of an image whose reference could not be
// resolved, as containerd's error reaches the kubelet; reason is why
// (the registry's error).
func UnresolvedMessage(img imageinfo.Image, reason string) string {
	ref := img.Ref()
	return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: %s", ref, ref, reason)
}

// noMatchMessage words a pull with no platform for the host the way the
// runtime's gRPC error reaches the kubelet.
func (r Runtime) noMatchMessage(img imageinfo.Image) string {
	if r.Name == Docker {
		platform := r.OS + "/" + r.Arch
		if !r.Build.IsZero() {
			platform += " " + r.Build.Label()
		}
		return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: no matching manifest for %s in the manifest list entries", platform)
	}
	return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: no match for platform in manifest: not found", img.Ref())
}

// missingMessage words a pull of an image that does not exist the way the
// runtime's gRPC error reaches the kubelet: containerd's resolver (remotes/
// docker/resolver.go) says "<ref>: not found" for an unknown tag and passes
// on the HEAD request's DNS error; dockerd asks the registry's /v2/ first.
func (r Runtime) missingMessage(img imageinfo.Image) string {
	ref := img.Ref()
	host, path, _ := strings.Cut(img.Repository, "/")
	manifest := img.Tag
	if img.Digest != "" {
		manifest = img.Digest
	}
	if host == "docker.io" {
		host = "registry-1.docker.io"
	}
	if errors.Is(img.Missing, imageinfo.ErrUnauthorized) {
		head := fmt.Sprintf("unexpected status from HEAD request to https://%s/v2/%s/manifests/%s: 401 Unauthorized", host, path, manifest)
		if r.Name == Docker {
			return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: Head \"https://%s/v2/%s/manifests/%s\": unauthorized: authentication required", host, path, manifest)
		}
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: %s", ref, ref, head)
	}
	if errors.Is(img.Missing, imageinfo.ErrNoRepository) {
		const denied = "repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"
		if r.Name == Docker {
			return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: pull access denied for %s, %s", dockerShortName(img.Repository), denied)
		}
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: pull access denied, %s", ref, ref, denied)
	}
	if errors.Is(img.Missing, imageinfo.ErrNoSuchHost) {
		dial := fmt.Sprintf("dial tcp: lookup %s: no such host", strings.Split(host, ":")[0])
		if r.Name == Docker {
			return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: Get \"https://%s/v2/\": %s", host, dial)
		}
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: failed to do request: Head \"https://%s/v2/%s/manifests/%s\": %s",
			ref, ref, host, path, manifest, dial)
	}
	if r.Name == Docker {
		return fmt.Sprintf("rpc error: code = Unknown desc = Error response from daemon: manifest for %s not found: manifest unknown: manifest unknown", ref)
	}
	return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", ref, ref, ref)
}

// CreateContainer creates a container from a pulled image. containerd
// and Docker only record the container here: the Windows compute system
// is created when the container starts, so a build mismatch shows there.
func (r Runtime) CreateContainer(pulled Pulled, id string) error { return nil }

// StartContainer starts a created container; a Windows image of a build the
// host cannot run fails in HCS (IMG-2, IMG-4). id is the container ID, which
// HCS names in its error.
func (r Runtime) StartContainer(pulled Pulled, id string) error {
	if imageinfo.StartsOn(pulled.Platform, r.Build) {
		return nil
	}
	return &StartError{Message: r.hcsMismatch(id)}
}

// CreateProcess starts the container's first process as user, as the
// runtime does when it starts the task. A Windows account the container
// image does not have makes HCS fail the logon (ERROR_LOGON_FAILURE,
// 0x52e); containerd reports it from hcsshim's hcs::System::CreateProcess
// and the kubelet shows StartError, like a build mismatch. knownUser says
// whether the image has the account.
func (r Runtime) CreateProcess(id, user string, knownUser bool) error {
	if r.OS != "windows" || user == "" || knownUser {
		return nil
	}
	const logonFailure = "The user name or password is incorrect."
	if r.Name == Docker {
		return &StartError{Message: fmt.Sprintf("Error response from daemon: container %s encountered an error during hcs::System::CreateProcess: failure in a Windows system call: %s (0x52e)", id, logonFailure)}
	}
	return &StartError{Message: fmt.Sprintf("failed to start containerd task %q: hcs::System::CreateProcess %s: %s: unknown", id, id, logonFailure)}
}

// hcsMismatch is HCS error 0xc0370101 as each runtime reports it (IMG-4):
// containerd's shim says hcs::CreateComputeSystem, Docker's hcsshim says
// hcsshim::CreateComputeSystem.
func (r Runtime) hcsMismatch(id string) string {
	if r.Name == Docker {
		return fmt.Sprintf("Error response from daemon: hcsshim::CreateComputeSystem %s: The container operating system does not match the host operating system.", id)
	}
	return fmt.Sprintf("failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem %s: The container operating system does not match the host operating system.: unknown", id)
}

// RunSandbox pulls and starts the pause image of a pod sandbox with the
// RuntimeClass handler handler ("" the default runtime; KLT-11, IMG-5,
// TS-11). The returned message is what the kubelet puts after "Failed to
// create pod sandbox: ".
func (r Runtime) RunSandbox(pauseImage, sandboxID, handler string) error {
	refused := windows.HandlerError(r.Name, r.OS, handler)
	if refused != "" && r.Name == Docker {
		return &SandboxError{Message: refused} // cri-dockerd checks before anything else
	}
	pulled, err := r.Pull(pauseImage)
	if err != nil {
		if r.Name == Docker {
			return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed pulling image %q: %s", pauseImage, rpcDesc(err.Error()))}
		}
		return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to get sandbox image %q: failed to pull image %q: %s", pauseImage, pauseImage, rpcDesc(err.Error()))}
	}
	if refused != "" {
		return &SandboxError{Message: refused} // containerd ensures the image first
	}
	if err := r.StartContainer(pulled, sandboxID); err != nil {
		if r.Name == Docker {
			return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to start sandbox container for pod: %s", err)}
		}
		return &SandboxError{Message: fmt.Sprintf("rpc error: code = Unknown desc = failed to start sandbox %q: %s", sandboxID, err)}
	}
	return nil
}

// NewID returns a container or sandbox ID: 64 hex digits derived from seed,
// so the same container gets the same ID after an agent restart.
func NewID(seed string) string {
	return digestOf(seed)
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// imageSize makes up a stable, plausible size: Windows Server Core images
// are gigabytes, Nano Server and Linux images tens of megabytes.
func imageSize(img imageinfo.Image) int64 {
	h := int64(hash(img.Ref()) % 1000)
	switch {
	case img.HasOS("windows") && strings.Contains(img.Repository, "nanoserver"):
		return 120_000_000 + h*100_000
	case img.HasOS("windows") && !img.HasOS("linux"):
		return 2_400_000_000 + h*2_000_000
	default:
		return 20_000_000 + h*80_000
	}
}

// pullDuration is a stable few hundred milliseconds per image.
func pullDuration(ref string) time.Duration {
	return time.Duration(200+hash(ref)%500) * time.Millisecond
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// rpcDesc strips the gRPC status prefix ("rpc error: code = X desc = ").
func rpcDesc(msg string) string {
	if _, desc, ok := strings.Cut(msg, " desc = "); ok {
		return desc
	}
	return msg
}

// dockerShortName is a Docker Hub repository as dockerd names it in
// errors: without docker.io/ and library/.
func dockerShortName(repo string) string {
	repo = strings.TrimPrefix(repo, "docker.io/")
	return strings.TrimPrefix(repo, "library/")
}
