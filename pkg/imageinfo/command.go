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
	// Text are text files the image ships, by path, with their content:
	// a web server's default page, which its server serves and tests
	// move away to fail a probe.
	Text map[string]string
}

// Shell commands of the base images, as their Dockerfiles set them.
var (
	windowsCmd = Command{Cmd: []string{`c:\windows\system32\cmd.exe`}}
	iisMonitor = Command{Entrypoint: []string{`C:\ServiceMonitor.exe`, "w3svc"}, Text: map[string]string{`C:\inetpub\wwwroot\iisstart.htm`: iisStartPage}}
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
	"mcr.microsoft.com/dotnet/framework/aspnet":  aspnetMonitor,
	"mcr.microsoft.com/powershell":               {Cmd: []string{"pwsh"}},
	"registry.k8s.io/pause":                      {Entrypoint: []string{"/pause"}},
	"mcr.microsoft.com/oss/kubernetes/pause":     {Entrypoint: []string{"/pause"}},
	"mcr.microsoft.com/k8s/core/pause":           {Entrypoint: []string{"/pause"}},
	"registry.k8s.io/e2e-test-images/agnhost":    {Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}, Files: agnhostFiles, Text: map[string]string{"/etc/os-release": alpineRelease}},
	"registry.k8s.io/e2e-test-images/kitten":     kitten,
	"registry.k8s.io/e2e-test-images/nautilus":   nautilus,
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
	"docker.io/library/nginx":                    {Entrypoint: []string{"/docker-entrypoint.sh"}, Cmd: []string{"nginx", "-g", "daemon off;"}, Text: nginxPages},
	"registry.k8s.io/e2e-test-images/nginx":      {Cmd: []string{"nginx", "-g", "daemon off;"}, Text: nginxPages},
	// nonewprivs: Alpine plus a setuid-root nnp that prints its euid.
	"registry.k8s.io/e2e-test-images/nonewprivs": {Cmd: []string{"nnp"}, Files: []string{"/usr/local/bin/nnp"}},
	"docker.io/library/httpd":                    {Cmd: []string{"httpd-foreground"}, Text: map[string]string{"/usr/local/apache2/htdocs/index.html": "<html><body><h1>It works!</h1></body></html>\n"}},
	"docker.io/library/redis":                    {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"redis-server"}},
	"docker.io/library/memcached":                {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"memcached"}},
	"docker.io/library/mongo":                    {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"mongod"}},
	"docker.io/library/rabbitmq":                 {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"rabbitmq-server"}},
	"docker.io/library/traefik":                  {Entrypoint: []string{"/entrypoint.sh"}, Cmd: []string{"traefik"}},
	"registry.k8s.io/coredns/coredns":            {Entrypoint: []string{"/coredns"}},
	"docker.io/flannel/flannel":                  {Entrypoint: []string{"/opt/bin/flanneld"}, Files: []string{"/opt/bin/flanneld"}},
	"ghcr.io/winkube/winkube":                    {Entrypoint: []string{"/winkube"}}, // `webhook install`'s image
	"ghcr.io/flannel-io/flannel":                 {Entrypoint: []string{"/opt/bin/flanneld"}, Files: []string{"/opt/bin/flanneld"}},
	"docker.io/flannel/flannel-cni-plugin":       {Cmd: []string{"/bin/sh"}, Files: []string{"/flannel"}},
	"ghcr.io/flannel-io/flannel-cni-plugin":      {Cmd: []string{"/bin/sh"}, Files: []string{"/flannel"}},
	// windows_exporter's Dockerfile: COPY to /windows_exporter.exe,
	// ENTRYPOINT ["windows_exporter.exe"].
	"ghcr.io/prometheus-community/windows-exporter":  windowsExporter,
	"docker.io/prometheuscommunity/windows-exporter": windowsExporter,
	"quay.io/prometheuscommunity/windows-exporter":   windowsExporter,
	// The CSI images' Dockerfiles: COPY the binary to / and make it the
	// ENTRYPOINT (the Windows builds' is the same name with .exe).
	"registry.k8s.io/sig-storage/csi-node-driver-registrar": {Entrypoint: []string{"/csi-node-driver-registrar"}},
	"registry.k8s.io/sig-storage/livenessprobe":             {Entrypoint: []string{"/livenessprobe"}},
	"registry.k8s.io/sig-storage/smbplugin":                 {Entrypoint: []string{"/smbplugin"}},
	"gcr.io/k8s-staging-sig-storage/smbplugin":              {Entrypoint: []string{"/smbplugin"}},
	"registry.k8s.io/csi-secrets-store/driver":              {Entrypoint: []string{"/secrets-store-csi"}},
	"gcr.io/k8s-staging-csi-secrets-store/driver":           {Entrypoint: []string{"/secrets-store-csi"}},
	// cluster/images/etcd: distroless with etcd in /usr/local/bin and no
	// ENTRYPOINT or CMD; its users give the command.
	"registry.k8s.io/etcd": {Files: []string{"/usr/local/bin/etcd"}},
	// test/images/sample-apiserver: ADD sample-apiserver /sample-apiserver,
	// ENTRYPOINT ["/sample-apiserver"].
	"registry.k8s.io/e2e-test-images/sample-apiserver": {Entrypoint: []string{"/sample-apiserver"}, Files: []string{"/sample-apiserver"}},
}

var windowsExporter = Command{Entrypoint: []string{"windows_exporter.exe"}, Files: []string{`/windows_exporter.exe`}}

// DefaultCommand returns the default command of a catalog image; ok is
// false when the catalog does not know it.
func DefaultCommand(ref string) (Command, bool) {
	r := parseReference(ref)
	if r.repository == frameworkSamples {
		return sampleCommand(r.tag)
	}
	c, ok := defaultCommands[r.repository]
	return c, ok
}

// agnhost (test/images/agnhost) is its binary and the localhost
// certificate pair it serves with, on Alpine 3.22.
var agnhostFiles = []string{"/agnhost", "/localhost.crt", "/localhost.key"}

// kitten and nautilus (test/images/kitten, test/images/nautilus) are
// agnhost plus a picture and a data.json naming it, serving them with
// test-webserver: upstream's ImageVolume e2e mounts kitten as a volume,
// kubectl's update-demo serves both.
var (
	kitten   = pictureSite("kitten.jpg")
	nautilus = pictureSite("nautilus.jpg")
)

func pictureSite(picture string) Command {
	return Command{
		Entrypoint: []string{"/agnhost"}, Cmd: []string{"test-webserver"},
		Files: append(append([]string{}, agnhostFiles...), "/"+picture),
		Text:  map[string]string{"/data.json": "{\n  \"image\": \"" + picture + "\"\n}\n", "/etc/os-release": alpineRelease},
	}
}

// alpineRelease is /etc/os-release of alpine:3.22, the base of agnhost
// and the images built on it.
const alpineRelease = `NAME="Alpine Linux"
ID=alpine
VERSION_ID=3.22.0
PRETTY_NAME="Alpine Linux v3.22"
HOME_URL="https://alpinelinux.org/"
BUG_REPORT_URL="https://gitlab.alpinelinux.org/alpine/aports/-/issues"
`

// The default pages of the web server images.
var (
	nginxPages = map[string]string{
		"/usr/share/nginx/html/index.html": "<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n<p>If you see this page, the nginx web server is successfully installed and\nworking. Further configuration is required.</p>\n</body>\n</html>\n",
		"/usr/share/nginx/html/50x.html":   "<!DOCTYPE html>\n<html>\n<head>\n<title>Error</title>\n</head>\n<body>\n<h1>An error occurred.</h1>\n</body>\n</html>\n",
	}
	iisStartPage = "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\r\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\r\n<head>\r\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\" />\r\n<title>IIS Windows Server</title>\r\n</head>\r\n<body>\r\n<div id=\"container\">\r\n<a href=\"http://go.microsoft.com/fwlink/?linkid=66138&amp;clcid=0x409\"><img src=\"iisstart.png\" alt=\"IIS\" width=\"960\" height=\"600\" /></a>\r\n</div>\r\n</body>\r\n</html>"
)

// EntrypointOf is the default ENTRYPOINT and CMD of an image the catalog
// knows (windows.PodTarget.Entrypoint).
func EntrypointOf(ref string) (entrypoint, cmd []string, ok bool) {
	c, ok := DefaultCommand(ref)
	return c.Entrypoint, c.Cmd, ok
}
