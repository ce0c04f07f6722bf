// Package windows is the Windows node rule book (docs/rules.md) written
// as pure functions and tables: Windows builds and releases, image/host
// compatibility, kubelet arithmetic, pod field rules and the limitations that
// lint, the cluster planner and the emulated node must all agree on.
//
// Nothing here does I/O. Every exported rule names its rule ID so a reader can
// go from the code to the rule and back.
package windows
