package values

// Flatten is the arguments with each list argument spread out.
func Flatten(args []any) []any {
	var out []any
	for _, a := range args {
		out = append(out, ToList(a)...)
	}
	return out
}

// BytesOf is a byte array argument ([byte[]] or a list of numbers) as
// bytes.
func BytesOf(args []any) []byte {
	var b []byte
	for _, a := range Flatten(args) {
		n, _ := ToInt(a)
		b = append(b, byte(n))
	}
	return b
}
