package rules

var gmsaRules = []Rule{
	{ID: "GMSA-1", Title: "a pod's gmsaCredentialSpecName is resolved to the named GMSACredentialSpec at admission",
		Text: "GMSA credential specs are cluster-scoped `GMSACredentialSpec` objects (`windows.k8s.io/v1`, the spec's JSON under `credspec`). " +
			"A pod or container names one in `securityContext.windowsOptions.gmsaCredentialSpecName`; the windows-gmsa mutating webhook adds its JSON as `gmsaCredentialSpec` on pod creation. " +
			"A name with no such object is refused: `cred spec NAME does not exist`. Without the webhook the name reaches the node unresolved and the container runs without the identity. " +
			"`winkube lint` asks the webhook's own decision over the GMSACredentialSpecs and RBAC objects of its input, `winkube doctor` over the cluster's, so all three refuse the same pods in the same words.",
		Commands: []string{Up, GMSA, Lint, Doctor}},
	{ID: "GMSA-2", Title: "the pod's service account must be allowed to `use` the GMSACredentialSpec",
		Text: "The validating webhook asks the API server (a LocalSubjectAccessReview in the pod's namespace) whether the pod's service account may `use` each named spec; " +
			"grant it with a ClusterRole whose rule has verb `use` on `gmsacredentialspecs` of `windows.k8s.io` with the spec in `resourceNames`, bound to the service account. " +
			"Otherwise the pod is refused: ``service account \"SA\" is not authorized to `use` GMSA cred spec \"NAME\"``. " +
			"lint and doctor evaluate `use` with kube-apiserver's own RBAC authorizer over the Roles, ClusterRoles and bindings they read (lint: its input; without any there, not checked).",
		Commands: []string{Up, GMSA, Lint, Doctor}},
	{ID: "GMSA-3", Title: "gmsaCredentialSpec must be the named spec's contents and cannot change",
		Text: "Contents a pod sets itself are compared with the named spec's as JSON: a difference is refused (`the GMSA cred spec contents for pod \"P\" does not match the contents of GMSA resource \"NAME\"`), " +
			"and contents without a name are refused too. An update of a pod may change neither the name nor the contents (`cannot update an existing pod's GMSA settings`).",
		Commands: []string{Up, GMSA, Lint, Doctor}},
	{ID: "GMSA-4", Title: "a container reaches the gMSA's domain only from a node of that domain",
		Text: "The container's processes keep their user (`whoami` prints the container user), but the machine talks to the domain as the gMSA: " +
			"`nltest /sc_verify:DOMAIN` reports the trusted domain controller with `NERR_Success`, and `klist get krbtgt` retrieves the account's tickets. " +
			"A container without a credential spec is in no domain (`RPC_S_UNKNOWN_IF`); one whose spec names a domain the node cannot reach finds no domain controller (`ERROR_NO_LOGON_SERVERS`). " +
			"winkube emulates one domain per cluster (`activeDirectory.domain` of the cluster config, default contoso.com) and joins its Windows nodes to it.",
		Commands: []string{Up}},
	{ID: "GMSA-5", Title: "with containerd, a gMSA container needs a patched Windows to reach network shares",
		Text: "Accessing Windows network shares (SMB) with the gMSA identity from a container run by containerd needs a kernel patch: " +
			"it shipped in Windows Server, version 2004, and reached Windows Server 2019 in early 2021 (microsoft/Windows-Containers issue 44). " +
			"On an unpatched node the share refuses the container even though `nltest` and `klist` succeed.",
	},
}
