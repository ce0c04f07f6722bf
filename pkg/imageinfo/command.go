package imageinfo

// Command is an image's default process: the ENTRYPOINT and CMD of its
// config. A pod's container.command replaces Entrypoint (and drops Cmd);
// container.args replaces Cmd.
type Command struct {
	Entrypoint []string
	Cmd        []string
	// Files are files the image ships that containers copy or read
	// (kube-flannel's CNI plugin binary); the emulated node puts them in
	// the container's filesystem.
	Files []string
}

// Shell commands of the base images, as their Dockerfiles set them.
var (
	windowsCmd = Command{Cmd: []string{`c:\windows\system32\cmd.exe`}}
	iisMonitor = Command{Entrypoint: []string{`C:\ServiceMonitor.exe`, "w3svc"}}
	shCmd      = Command{Cmd: []string{"sh"}}
	bashCmd    = Command{Cmd: []string{"bash"}}
)

// defaultCommands are the default commands of catalog repositories whose
// images publish one the emulated nodes can interpret. Repositories left
// out (databases that refuse to start without a password, control-plane
// images started by their manifests) have no entry.
var defaultCommands = map[string]Command{
	"mcr.microsoft.com/windows/servercore":       windowsCmd,
	"mcr.microsoft.com/windows/nanoserver":       windowsCmd,
	"mcr.microsoft.com/windows/server":           windowsCmd,
	"mcr.microsoft.com/windows":                  windowsCmd,
	"mcr.microsoft.com/dotnet/framework/runtime": windowsCmd,
	"mcr.microsoft.com/windows/servercore/iis":   iisMonitor,
	"mcr.microsoft.com/dotnet/framework/aspnet":  iisMonitor,
	"mcr.microsoft.com/powershell":               {Cmd: []string{"pwsh"}},
	"registry.k8s.io/pause":                      {Entrypoint: []string{"/pause"}},
	"mcr.microsoft.com/oss/kubernetes/pause":     {Entrypoint: []string{"/pause"}},
	"mcr.microsoft.com/k8s/core/pause":           {Entrypoint: []string{"/pause"}},
	"registry.k8s.io/e2e-test-images/agnhost":    {Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}},
	"docker.io/library/busybox":                  shCmd,
	"registry.k8s.io/e2e-test-images/busybox":    shCmd,
	"docker.io/library/alpine":                   {Cmd: []string{"/bin/sh"}},
	"docker.io/library/ubuntu":                   {Cmd: []string{"/bin/bash"}},
	"docker.io/library/debian":                   bashCmd,
	"docker.io/library/centos":                   {Cmd: []string{"/bin/bash"}},
	"docker.io/library/fedora":                   {Cmd: []string{"/bin/bash"}},
	"docker.io/library/golang":                   bashCmd,
	"docker.io/library/python":                   {Cmd: []string{"python3"}},
	"docker.io/library/node":                     {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"node"}},
	"docker.io/library/nginx":                    {Entrypoint: []string{"/docker-entrypoint.sh"}, Cmd: []string{"nginx", "-g", "daemon off;"}},
	"registry.k8s.io/e2e-test-images/nginx":      {Cmd: []string{"nginx", "-g", "daemon off;"}},
	"docker.io/library/httpd":                    {Cmd: []string{"httpd-foreground"}},
	"docker.io/library/redis":                    {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"redis-server"}},
	"docker.io/library/memcached":                {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"memcached"}},
	"docker.io/library/mongo":                    {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"mongod"}},
	"docker.io/library/rabbitmq":                 {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"rabbitmq-server"}},
	"docker.io/library/traefik":                  {Entrypoint: []string{"/entrypoint.sh"}, Cmd: []string{"traefik"}},
	"registry.k8s.io/coredns/coredns":            {Entrypoint: []string{"/coredns"}},
	"docker.io/flannel/flannel":                  {Entrypoint: []string{"/opt/bin/flanneld"}, Files: []string{"/opt/bin/flanneld"}},
	"ghcr.io/flannel-io/flannel":                 {Entrypoint: []string{"/opt/bin/flanneld"}, Files: []string{"/opt/bin/flanneld"}},
	"docker.io/flannel/flannel-cni-plugin":       {Cmd: []string{"/bin/sh"}, Files: []string{"/flannel"}},
	"ghcr.io/flannel-io/flannel-cni-plugin":      {Cmd: []string{"/bin/sh"}, Files: []string{"/flannel"}},
	"mcr.microsoft.com/dotnet/framework/samples": iisMonitor,
}

// DefaultCommand returns the default command of a catalog image; ok is
// false when the catalog does not know it.
func DefaultCommand(ref string) (Command, bool) {
	r := parseReference(ref)
	c, ok := defaultCommands[r.repository]
	return c, ok
}
