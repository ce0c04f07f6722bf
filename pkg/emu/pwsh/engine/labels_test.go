package engine_test

import "testing"

// Labelled loops (about_Break, about_Continue): break and continue name
// the loop they leave or go on with, through inner loops and switches;
// a label before anything else is a command name.
func TestLoopLabels(t *testing.T) {
	runAll(t, []tc{
		{script: ":outer foreach ($i in 1..3) { foreach ($j in 1..3) { if ($j -eq 2) { continue outer }; \"$i$j\" } }", out: lines("11", "21", "31")},
		{script: ":outer foreach ($i in 1..3) { foreach ($j in 1..3) { if ($i -eq 2) { break outer }; \"$i$j\" } }; 'after'", out: lines("11", "12", "13", "after")},
		{script: "$i = 0; :red while ($true) { :yellow while ($true) { while ($true) { $i++; if ($i -eq 1) { break yellow }; if ($i -eq 3) { break red }; break } } }; $i", out: lines("3")},
		{script: ":loop for ($i = 0; $i -lt 3; $i++) { switch ($i) { 1 { continue loop } default { \"i=$i\" } } }", out: lines("i=0", "i=2")},
		{script: ":sw switch (1, 2, 3) { 2 { break sw } default { $_ } }", out: lines("1")},
		{script: "$n = 0; :d do { $n++; foreach ($x in 1) { continue d } } while ($n -lt 3); $n", out: lines("3")},
	})
}
