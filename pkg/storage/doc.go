// Package storage gives a winkube cluster what kind gives its clusters: a
// default StorageClass ("standard") and a dynamic provisioner behind it, so
// PersistentVolumeClaims and StatefulSets with volumeClaimTemplates work on
// the emulated nodes.
//
// The class binds WaitForFirstConsumer: the scheduler picks a node for the
// pod, writes it into the claim's volume.kubernetes.io/selected-node
// annotation, and the real kube-controller-manager hands the claim to the
// provisioner named in the class (announcing it with its own
// ExternalProvisioning event). The provisioner then creates a node-local
// hostPath PersistentVolume pinned to that node, pre-bound to the claim, and
// the controller-manager's PersistentVolume controller completes the binding.
// Binding never looks at the node's operating system (STO-3); whether the
// node can mount the volume is the node's business (STO-2, pkg/node).
//
// The provisioner is named winkube.io/local-path rather than kind's
// rancher.io/local-path: the events and the pv.kubernetes.io/provisioned-by
// annotation then say who really created the volume, and a cluster that also
// runs Rancher's local-path-provisioner never has two controllers racing for
// the same claims. The class name "standard" is kind's, so manifests written
// for kind find their class.
//
// The emulated nodes have no disks: the provisioner writes API objects only
// and creates or removes no directories.
package storage
