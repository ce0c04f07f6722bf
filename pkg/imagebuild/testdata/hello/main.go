// Command hello stands in for winkube in the image tests: a main package
// of the module that builds in a moment.
package main

import "fmt"

func main() { fmt.Println("hello from the image") }
