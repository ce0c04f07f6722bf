package cni

import (
	"encoding/json"
	"net"
)

// Node annotations flanneld's kube subnet manager writes, under its
// default prefix flannel.alpha.coreos.com.
const (
	AnnotationBackendType       = "flannel.alpha.coreos.com/backend-type"
	AnnotationBackendData       = "flannel.alpha.coreos.com/backend-data"
	AnnotationPublicIP          = "flannel.alpha.coreos.com/public-ip"
	AnnotationKubeSubnetManager = "flannel.alpha.coreos.com/kube-subnet-manager"
)

// FlannelAnnotations are the annotations flanneld sets on its node:
// backend-data is {"VNI":4096,"VtepMAC":"..."} for vxlan (the VTEP MAC in
// Go's colon form; on Windows the HNS network's DR MAC) and null for
// host-gw.
func FlannelAnnotations(backendType string, vni int, publicIP string, vtepMAC string) map[string]string {
	data := "null"
	if backendType == BackendVXLAN {
		mac := vtepMAC
		if hw, err := net.ParseMAC(vtepMAC); err == nil {
			mac = hw.String()
		}
		b, _ := json.Marshal(struct {
			VNI     int
			VtepMAC string
		}{vni, mac})
		data = string(b)
	}
	return map[string]string{
		AnnotationBackendType:       backendType,
		AnnotationBackendData:       data,
		AnnotationPublicIP:          publicIP,
		AnnotationKubeSubnetManager: "true",
	}
}

// BackendData is the VNI and VTEP MAC in a vxlan backend-data annotation.
type BackendData struct {
	VNI     int
	VtepMAC string
}

// ParseBackendData reads a backend-data annotation; "null" (host-gw) gives
// the zero value.
func ParseBackendData(s string) (BackendData, error) {
	var d BackendData
	if s == "" || s == "null" {
		return d, nil
	}
	err := json.Unmarshal([]byte(s), &d)
	return d, err
}
