package rules

// wkRules are winkube's own: the winkube.io/* annotations users set on
// pods for the emulated nodes, parsed once (pkg/apis/annotations) for the
// node, lint and the webhook.
var wkRules = []Rule{
	{ID: "WK-1", Title: "winkube.io/unknown-program is stand-in, idle or exit CODE",
		Text: "What runs for a container whose program winkube cannot follow: `stand-in` (the default; a stand-in listens on the container's declared and probed ports), " +
			"`idle` (nothing listens; the container runs as `winkube.io/run-seconds` and `winkube.io/exit-code` say) or `exit CODE` (it exits with CODE, a 32-bit integer, at once). " +
			"The emulated node refuses any other value: the pod's containers wait with `CreateContainerConfigError` and the message `annotation winkube.io/unknown-program=\"VALUE\": want stand-in, idle or exit CODE`, " +
			"the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-2", Title: "winkube.io/run-seconds is a number of seconds, 0 or more",
		Text: "How long each container whose program the emulation does not run keeps running before it exits, e.g. `\"10\"` or `\"2.5\"`. " +
			"Any other value is refused by the emulated node (`CreateContainerConfigError`) in the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-3", Title: "winkube.io/exit-code is an integer",
		Text: "The exit code of the pod's regular containers when they end by themselves, a 32-bit integer as a container status holds it. " +
			"Any other value is refused by the emulated node (`CreateContainerConfigError`) in the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-4", Title: "winkube.io/ignore-sigterm is true or false",
		Text: "`\"true\"` makes the containers ignore the stop signal, so they run until the grace period (capped by the runtime, LIM-14) ends and are killed. " +
			"Any value other than true or false is refused by the emulated node (`CreateContainerConfigError`) in the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-5", Title: "winkube.io/usage-cpu is a CPU quantity, 0 or more",
		Text: "The CPU the pod's running containers use together (e.g. `\"750m\"`), shared among them in proportion to their requests, as the kubelet's summary API and metrics-server then report it. " +
			"A value that is not a non-negative quantity is refused by the emulated node (`CreateContainerConfigError`) in the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-6", Title: "winkube.io/usage-memory is a memory quantity, 0 or more",
		Text: "The memory the pod's running containers use together (e.g. `\"300Mi\"`), shared like `winkube.io/usage-cpu`. " +
			"A value that is not a non-negative quantity is refused by the emulated node (`CreateContainerConfigError`) in the words lint and the webhook report.",
		Commands: []string{Lint, Up}},
	{ID: "WK-7", Title: "pod annotations belong on the pod template, not on the workload",
		Text: "The emulated node reads `winkube.io/unknown-program`, `run-seconds`, `exit-code`, `ignore-sigterm`, `usage-cpu`, `usage-memory`, `sandbox-image` and `image-users` from the pod. " +
			"On a Deployment's (or any workload's) own `metadata.annotations` they reach no pod, so nothing obeys them; they go in the template's `metadata.annotations`.",
		Commands: []string{Lint}},
	{ID: "WK-8", Title: "winkube.io/ignore lists rule IDs of this book",
		Text:     "`winkube.io/ignore` on an object silences the listed rules in `winkube lint` (e.g. `\"IMG-2,SCH-5\"`). An item that names no rule silences nothing, which is worth knowing before relying on it.",
		Commands: []string{Lint}},
}
