package kubeletapi

import (
	"net/http"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
	remotecommandserver "k8s.io/cri-streaming/pkg/streaming/remotecommand"
)

// The kubelet's streaming timeouts (its --streaming-connection-idle-timeout
// default and the CRI streaming server's stream creation timeout).
const (
	streamIdleTimeout     = 4 * time.Hour
	streamCreationTimeout = remotecommandserver.DefaultStreamCreationTimeout
)

// routeStreaming serves exec, attach and port-forward as a kubelet does:
// the upstream CRI streaming server code speaks SPDY and WebSocket (v1–v4
// channel protocols; kube-apiserver translates kubectl's v5 WebSocket to
// SPDY), and the pod (Node.Running) runs the command in the container's
// virtual OS or dials the port on the pod's own loopback.
func (s *Server) routeStreaming(mux *http.ServeMux) {
	for _, p := range []string{"/exec/{namespace}/{pod}/{container}", "/exec/{namespace}/{pod}/{uid}/{container}"} {
		mux.HandleFunc(p, s.exec)
	}
	for _, p := range []string{"/attach/{namespace}/{pod}/{container}", "/attach/{namespace}/{pod}/{uid}/{container}"} {
		mux.HandleFunc(p, s.attach)
	}
	for _, p := range []string{"/portForward/{namespace}/{pod}", "/portForward/{namespace}/{pod}/{uid}"} {
		mux.HandleFunc(p, s.portForward)
	}
}

func (s *Server) exec(w http.ResponseWriter, r *http.Request) {
	opts, err := remotecommandserver.NewOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target, ok := s.streamTarget(w, r)
	if !ok {
		return
	}
	cmd := r.URL.Query()["command"]
	remotecommandserver.ServeExec(w, r, target, r.PathValue("pod"), r.PathValue("uid"), r.PathValue("container"),
		cmd, opts, streamIdleTimeout, streamCreationTimeout, remotecommandserver.SupportedStreamingProtocols)
}

func (s *Server) attach(w http.ResponseWriter, r *http.Request) {
	opts, err := remotecommandserver.NewOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target, ok := s.streamTarget(w, r)
	if !ok {
		return
	}
	remotecommandserver.ServeAttach(w, r, target, r.PathValue("pod"), r.PathValue("uid"), r.PathValue("container"),
		opts, streamIdleTimeout, streamCreationTimeout, remotecommandserver.SupportedStreamingProtocols)
}

// portForward serves port forwarding as the kubelet does (the CRI
// streaming server's SPDY and WebSocket protocols).
func (s *Server) portForward(w http.ResponseWriter, r *http.Request) {
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target, ok := s.streamTarget(w, r)
	if !ok {
		return
	}
	portforward.ServePortForward(w, r, target, r.PathValue("pod"), r.PathValue("uid"), opts,
		streamIdleTimeout, streamCreationTimeout, portforward.SupportedProtocols)
}

// streamTarget finds the pod a streaming request is for, answering 404 as
// the kubelet does when it has no such pod.
func (s *Server) streamTarget(w http.ResponseWriter, r *http.Request) (Pod, bool) {
	node, _ := r.Context().Value(nodeKey{}).(string)
	var pod Pod
	if n := s.cfg.Node(node); n != nil {
		pod = n.Running(r.PathValue("namespace"), r.PathValue("pod"))
	}
	if pod == nil {
		http.Error(w, "pod does not exist", http.StatusNotFound)
		return nil, false
	}
	return pod, true
}
