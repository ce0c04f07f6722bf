package fluentbit

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// apiPod is what the API server answers for the pod app.
const apiPod = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"app","namespace":"web","uid":"u-1",
"labels":{"tier":"front","app":"shop"}},"spec":{"nodeName":"win-1","containers":[{"name":"iis","image":"iis"}]},
"status":{"podIP":"10.244.1.5","containerStatuses":[{"name":"iis","image":"mcr.microsoft.com/windows/servercore/iis:ltsc2022",
"imageID":"mcr.microsoft.com/windows/servercore/iis@sha256:abc","ready":true,"restartCount":0}]}}`

// The kubernetes filter reads the pod, namespace, container and ID from
// the tag, asks the API server for the pod with the service account's
// token, and adds its metadata; Merge_Log merges a JSON log's keys.
func TestKubernetesFilterAddsPodMetadata(t *testing.T) {
	id := strings.Repeat("d", 64)
	name := `C:\var\log\containers\app_web_iis-` + id + ".log"
	fx := newFixture(t, true, map[string]string{
		`C:\var\run\secrets\kubernetes.io\serviceaccount\token`:     "tok-123",
		`C:\var\run\secrets\kubernetes.io\serviceaccount\namespace`: "logging",
		`C:\fb.conf`: `[INPUT]
    Name              tail
    Path              c:\var\log\containers\*.log
    Tag               kube.*
    multiline.parser  cri
    Read_from_Head    On
[FILTER]
    Name      kubernetes
    Match     kube.*
    Kube_URL  http://10.96.0.1:80
    Merge_Log On
    Keep_Log  Off
[OUTPUT]
    Name  stdout
    Match *
`,
		name: `2026-11-28T01:50:00Z stdout F {"level":"warn","msg":"slow"}` + "\n",
	})
	var auth []string
	fx.sys.Net = pipeNet{peer: "10.96.0.1:80", serve: func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			auth = append(auth, req.URL.Path+" "+req.Header.Get("Authorization"))
			body, status := apiPod, "200 OK"
			if req.URL.Path != "/api/v1/namespaces/web/pods/app" {
				body, status = `{"kind":"Status","code":404}`, "404 Not Found"
			}
			io.WriteString(c, "HTTP/1.1 "+status+"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		}
	}}
	e := fx.start(t, "-c", `C:\fb.conf`)
	fx.step(e, time.Second)
	want := `{"time"=>"2026-11-28T01:50:00Z", "stream"=>"stdout", "_p"=>"F", "level"=>"warn", "msg"=>"slow", "kubernetes"=>{"pod_name"=>"app", "namespace_name"=>"web", "pod_id"=>"u-1", "labels"=>{"app"=>"shop", "tier"=>"front"}, "host"=>"win-1", "pod_ip"=>"10.244.1.5", "container_name"=>"iis", "docker_id"=>"` + id + `", "container_hash"=>"mcr.microsoft.com/windows/servercore/iis@sha256:abc", "container_image"=>"mcr.microsoft.com/windows/servercore/iis:ltsc2022"}}]`
	if got := fx.stdout.String(); !strings.HasPrefix(got, "[0] kube.c.var.log.containers.app_web_iis-"+id+".log: [[") || !strings.HasSuffix(got, want+"\n") {
		t.Fatalf("stdout:\n%s\nwant the record\n%s\nlog:\n%s", got, want, fx.stderr.String())
	}
	if len(auth) == 0 || !strings.HasSuffix(auth[len(auth)-1], " Bearer tok-123") {
		t.Errorf("requests %v", auth)
	}
	// Its own pod (the hostname) is not found: fluent-bit says so and goes on.
	if !strings.Contains(fx.stderr.String(), "[ warn] [filter:kubernetes:kubernetes.0] could not get meta for POD fluent-bit-abcde") {
		t.Errorf("log:\n%s", fx.stderr.String())
	}
}
